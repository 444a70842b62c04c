package dev.shardstore.contracts.sharding;

import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import java.util.Objects;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.UuidRepresentation;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * A sharded collection's entry in {@code config.collections}. BSON shape (MongoDB's): {@code {_id: "db.coll",
 * lastmodEpoch: ObjectId, timestamp: Timestamp, uuid: UUID, key: {...}, unique: bool, noBalance: bool,
 * maxChunkSizeBytes?: long, enableAutoMerger?: bool, timeseriesFields?: {...}}} ({@code maxChunkSizeBytes} and
 * {@code enableAutoMerger} only when {@code configureCollectionBalancing} set them).
 *
 * @param namespace {@code db.coll}
 * @param uuid      the collection instance's id
 * @param epoch     the epoch every chunk version of this instance carries (new on shard, refine, reshard)
 * @param timestamp the epoch's creation time (cluster time of the shardCollection commit)
 * @param key       the shard key pattern
 * @param unique    whether the shard key index is unique
 * @param noBalance whether the balancer leaves this collection alone
 * @param maxChunkSizeBytes the collection's own maximum chunk size ({@code configureCollectionBalancing chunkSize}),
 *                          positive; null for the cluster's {@code chunksize} setting
 * @param enableAutoMerger  whether the auto-merger may join this collection's chunks; null for the default (true)
 * @param timeseriesFields  for the buckets collection {@code db.system.buckets.<coll>} of a sharded time-series
 *                          collection, its options (mongo/src/mongo/db/s/README_timeseries.md "Sharding metadata": the config
 *                          service's copy is the source of truth of the granularity); null for any other collection
 */
public record ShardedCollection(String namespace, UUID uuid, ObjectId epoch, BsonTimestamp timestamp, ShardKeyPattern key,
        boolean unique, boolean noBalance, @Nullable Long maxChunkSizeBytes, @Nullable Boolean enableAutoMerger,
        @Nullable TimeseriesOptions timeseriesFields) {
    /** A collection with no balancing settings of its own that is not a time-series buckets collection. */
    public ShardedCollection(String namespace, UUID uuid, ObjectId epoch, BsonTimestamp timestamp, ShardKeyPattern key,
            boolean unique, boolean noBalance) {
        this(namespace, uuid, epoch, timestamp, key, unique, noBalance, null, null, null);
    }

    /** The buckets collection of a sharded time-series collection, with no balancing settings of its own. */
    public ShardedCollection(String namespace, UUID uuid, ObjectId epoch, BsonTimestamp timestamp, ShardKeyPattern key,
            boolean unique, boolean noBalance, @Nullable TimeseriesOptions timeseriesFields) {
        this(namespace, uuid, epoch, timestamp, key, unique, noBalance, null, null, timeseriesFields);
    }

    public ShardedCollection {
        if (maxChunkSizeBytes != null && maxChunkSizeBytes <= 0) {
            throw new IllegalArgumentException("maxChunkSizeBytes must be positive, was " + maxChunkSizeBytes);
        }
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(epoch, "epoch");
        Objects.requireNonNull(timestamp, "timestamp");
        Objects.requireNonNull(key, "key");
        if (namespace.indexOf('.') <= 0 || namespace.endsWith(".")) {
            throw new IllegalArgumentException("namespace must be db.collection, was '" + namespace + "'");
        }
    }

    public String database() {
        return namespace.substring(0, namespace.indexOf('.'));
    }

    public String collection() {
        return namespace.substring(namespace.indexOf('.') + 1);
    }

    public BsonDocument toBson() {
        BsonDocument doc = new BsonDocument("_id", new BsonString(namespace))
                .append("lastmodEpoch", new BsonObjectId(epoch))
                .append("timestamp", timestamp)
                .append("uuid", new BsonBinary(uuid, UuidRepresentation.STANDARD))
                .append("key", key.pattern())
                .append("unique", BsonBoolean.valueOf(unique))
                .append("noBalance", BsonBoolean.valueOf(noBalance));
        if (maxChunkSizeBytes != null) {
            doc.append("maxChunkSizeBytes", new BsonInt64(maxChunkSizeBytes));
        }
        if (enableAutoMerger != null) {
            doc.append("enableAutoMerger", BsonBoolean.valueOf(enableAutoMerger));
        }
        if (timeseriesFields != null) {
            doc.append("timeseriesFields", timeseriesFields.toDocument());
        }
        return doc;
    }

    /** Whether this is the buckets collection of a sharded time-series collection. */
    public boolean isTimeseries() {
        return timeseriesFields != null;
    }

    /**
     * Reads {@link #toBson()}'s shape.
     *
     * @throws IllegalArgumentException naming the malformed document
     */
    public static ShardedCollection fromBson(BsonDocument doc) {
        try {
            return new ShardedCollection(doc.getString("_id").getValue(), doc.getBinary("uuid").asUuid(UuidRepresentation.STANDARD),
                    doc.getObjectId("lastmodEpoch").getValue(), doc.getTimestamp("timestamp"),
                    new ShardKeyPattern(doc.getDocument("key")), doc.getBoolean("unique", BsonBoolean.FALSE).getValue(),
                    doc.getBoolean("noBalance", BsonBoolean.FALSE).getValue(),
                    doc.isNumber("maxChunkSizeBytes") ? doc.getNumber("maxChunkSizeBytes").longValue() : null,
                    doc.isBoolean("enableAutoMerger") ? doc.getBoolean("enableAutoMerger").getValue() : null,
                    doc.containsKey("timeseriesFields") ? TimeseriesOptions.parse(doc.get("timeseriesFields"), "timeseriesFields") : null);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed config.collections entry " + doc.toJson() + ": " + e.getMessage(), e);
        }
    }
}
