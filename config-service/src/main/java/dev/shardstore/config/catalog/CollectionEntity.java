package dev.shardstore.config.catalog;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.util.UUID;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * A row of {@code config.collections}; {@link #toCollection()} gives the contract's {@link ShardedCollection}. The
 * key pattern is stored as BSON, the epoch as its hex string, the timestamp as (seconds, increment), the
 * {@code timeseriesFields} of a time-series buckets collection as BSON (null otherwise).
 */
@Entity
@Table(name = "collections")
public class CollectionEntity {
    @Id
    private String namespace;

    @Column(nullable = false, unique = true)
    private UUID uuid;

    @Column(nullable = false)
    private String epoch;

    @Column(name = "timestamp_secs", nullable = false)
    private long timestampSecs;

    @Column(name = "timestamp_inc", nullable = false)
    private long timestampInc;

    @Column(name = "key_pattern", nullable = false)
    private byte[] keyPattern;

    @Column(name = "unique_key", nullable = false)
    private boolean unique;

    @Column(name = "no_balance", nullable = false)
    private boolean noBalance;

    @Column(name = "max_chunk_size_bytes")
    private @Nullable Long maxChunkSizeBytes;

    @Column(name = "enable_auto_merger")
    private @Nullable Boolean enableAutoMerger;

    @Column(name = "timeseries_fields")
    private byte @Nullable [] timeseriesFields;

    protected CollectionEntity() {}

    public CollectionEntity(ShardedCollection collection) {
        this.namespace = collection.namespace();
        this.uuid = collection.uuid();
        this.unique = collection.unique();
        this.noBalance = collection.noBalance();
        this.maxChunkSizeBytes = collection.maxChunkSizeBytes();
        this.enableAutoMerger = collection.enableAutoMerger();
        TimeseriesOptions timeseries = collection.timeseriesFields();
        this.timeseriesFields = timeseries == null ? null : BsonBytes.encode(timeseries.toDocument());
        setEpoch(collection.key(), collection.epoch(), collection.timestamp());
    }

    public String namespace() {
        return namespace;
    }

    public ShardedCollection toCollection() {
        return new ShardedCollection(namespace, uuid, new ObjectId(epoch),
                new BsonTimestamp((int) timestampSecs, (int) timestampInc), new ShardKeyPattern(BsonBytes.decode(keyPattern)),
                unique, noBalance, maxChunkSizeBytes, enableAutoMerger, timeseriesFields == null ? null
                        : TimeseriesOptions.parse(BsonBytes.decode(timeseriesFields), "timeseriesFields"));
    }

    /**
     * The collection's balancing settings ({@code configureCollectionBalancing}, {@code noBalance}); a null argument keeps
     * the current value.
     *
     * @param maxChunkSizeBytes positive bytes, or 0 to fall back to the cluster's {@code chunksize}
     */
    public void configureBalancing(@Nullable Long maxChunkSizeBytes, @Nullable Boolean enableAutoMerger, @Nullable Boolean noBalance) {
        if (maxChunkSizeBytes != null) {
            this.maxChunkSizeBytes = maxChunkSizeBytes == 0 ? null : maxChunkSizeBytes;
        }
        if (enableAutoMerger != null) {
            this.enableAutoMerger = enableAutoMerger;
        }
        if (noBalance != null) {
            this.noBalance = noBalance;
        }
    }

    /** collMod of a time-series collection: its new {@code timeseriesFields}. */
    public void setTimeseriesFields(TimeseriesOptions options) {
        this.timeseriesFields = BsonBytes.encode(options.toDocument());
    }

    /** refineCollectionShardKey: the extended key under a new epoch and timestamp. */
    public void refine(ShardKeyPattern key, ObjectId newEpoch, BsonTimestamp newTimestamp) {
        setEpoch(key, newEpoch, newTimestamp);
    }

    /** reshardCollection's commit: the temporary collection's uuid, the new key, a new epoch and timestamp. */
    public void reshard(UUID newUuid, ShardKeyPattern key, ObjectId newEpoch, BsonTimestamp newTimestamp) {
        this.uuid = newUuid;
        setEpoch(key, newEpoch, newTimestamp);
    }

    private void setEpoch(ShardKeyPattern key, ObjectId newEpoch, BsonTimestamp newTimestamp) {
        this.keyPattern = BsonBytes.encode(key.pattern());
        this.epoch = newEpoch.toHexString();
        this.timestampSecs = Integer.toUnsignedLong(newTimestamp.getTime());
        this.timestampInc = Integer.toUnsignedLong(newTimestamp.getInc());
    }
}
