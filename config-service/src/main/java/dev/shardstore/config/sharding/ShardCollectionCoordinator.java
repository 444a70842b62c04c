package dev.shardstore.config.sharding;

import dev.shardstore.config.settings.ClusterSettings;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.config.catalog.CatalogChunk;
import dev.shardstore.config.catalog.ShardedCollectionCatalog;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.config.catalog.DatabaseCatalog;
import dev.shardstore.config.catalog.DatabaseEntity;
import dev.shardstore.config.catalog.InitialChunks;
import dev.shardstore.config.catalog.ShardCatalog;
import dev.shardstore.config.catalog.ShardEntity;
import dev.shardstore.config.catalog.ShardingDdlCoordinators;
import dev.shardstore.config.shard.PreparedCollection;
import dev.shardstore.config.shard.ShardPeers;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.timeseries.BucketsNamespace;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.contracts.timeseries.TimeseriesShardKey;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Service;

/**
 * {@code _configsvrShardCollection} (docs/sharding-protocol.md): creates the database if needed, has the primary
 * shard prepare the collection, computes the initial chunks ({@link InitialChunks}), registers collection, chunks and
 * {@code ROUTING_CHANGED} event in one transaction, then asks the owning shards and the primary to refresh.
 *
 * <p>A time-series namespace (mongo/src/mongo/db/s/README_timeseries.md "shardCollection command" and "Sharding metadata"):
 * when {@code timeseries} options are given, or the primary shard holds {@code db.coll} as a time-series collection,
 * the primary checks and translates the key ({@link TimeseriesShardKey}) and prepares the buckets collection
 * {@code db.system.buckets.coll}; what is registered is the buckets namespace with the translated key and
 * {@code timeseriesFields}, and the other shards that receive chunks are prepared with the same options.
 */
@Service
public class ShardCollectionCoordinator {
    private final DatabaseCatalog databases;
    private final ShardCatalog shards;
    private final ShardedCollectionCatalog collections;
    private final ShardPeers peers;
    private final ShardRefresher refresher;
    private final LogicalClock clock;
    private final ClusterSettings settings;
    private final ShardingDdlCoordinators coordinators;

    public ShardCollectionCoordinator(DatabaseCatalog databases, ShardCatalog shards, ShardedCollectionCatalog collections, ShardPeers peers,
            ShardRefresher refresher, LogicalClock clock, ClusterSettings settings, ShardingDdlCoordinators coordinators) {
        this.databases = databases;
        this.shards = shards;
        this.collections = collections;
        this.peers = peers;
        this.refresher = refresher;
        this.clock = clock;
        this.settings = settings;
        this.coordinators = coordinators;
    }

    /**
     * Shards {@code namespace} on {@code key}. Sharding it again with the same key and unique flag is a no-op success.
     *
     * @param numInitialChunks the requested number of initial chunks, 0 for the default
     * @param timeseries       the {@code timeseries} option of the command (the collection is then created as a
     *                         time-series collection if missing), or null
     * @return the sharded collection (for a time-series namespace, its buckets collection)
     * @throws CommandException AlreadyInitialized (23) when sharded with another key; InvalidOptions naming
     *                          {@code unique} for a unique hashed key or {@code numInitialChunks} when it does not
     *                          apply or is too large, or naming the field of a time-series key MongoDB refuses
     *                          (or {@code timeseries} when the options differ from the sharded collection's);
     *                          InvalidNamespace for admin/config/local; ShardNotFound when no
     *                          shard is registered; the primary shard's error when it cannot prepare the collection;
     *                          ConflictingOperationInProgress (117) while a dropCollection of the namespace is unfinished
     *                          (checked first, and again when the collection is registered)
     */
    public ShardedCollection shardCollection(Namespace namespace, ShardKeyPattern key, boolean unique, long numInitialChunks,
            @Nullable BsonDocument timeseries) {
        coordinators.requireNone(namespace.toString(), "shardCollection");
        Optional<ShardedCollection> existing = collections.find(namespace.toString());
        if (existing.isPresent()) {
            ShardedCollectionCatalog.requireSameKey(existing.get(), key, unique);
            return existing.get();
        }
        Optional<ShardedCollection> existingTimeseries = BucketsNamespace.candidate(namespace)
                .flatMap(buckets -> collections.find(buckets.toString())).filter(ShardedCollection::isTimeseries);
        if (existingTimeseries.isPresent()) {
            return requireSameTimeseries(existingTimeseries.get(), key, unique, timeseries);
        }
        if (unique && key.isHashed()) {
            throw new CommandException(ErrorCode.InvalidOptions, "'unique' cannot be true for the hashed shard key " + key.pattern().toJson());
        }
        List<ShardEntity> registered = shards.listShards();
        if (registered.isEmpty()) {
            throw new CommandException(ErrorCode.ShardNotFound, "no shards are registered: run addShard first");
        }
        // a time-series key translates to a key hashed exactly when it is, so the given key answers this
        InitialChunks.checkRequested(key, numInitialChunks, registered.size());
        DatabaseEntity database = databases.getOrCreate(namespace.db());
        ShardEntity primary = registered.stream().filter(s -> s.id().equals(database.primaryShard())).findFirst()
                .orElseThrow(() -> new CommandException(ErrorCode.ShardNotFound, "primary shard '" + database.primaryShard()
                        + "' of database '" + namespace.db() + "' is not registered"));
        // Each prepare leaves the collection in its critical section on that shard until the refresh after the commit
        // (or, if anything below fails, the refresh in the catch): no write lands under routing about to change.
        Set<String> prepared = new LinkedHashSet<>();
        String registeredNamespace = namespace.toString();
        try {
            prepared.add(primary.id());
            PreparedCollection onPrimary = peers.prepareShardCollection(primary.id(), primary.host(), namespace.db(), namespace.collection(),
                    key, unique, settings.maxChunkSizeBytes(), database.version(), timeseries);
            TimeseriesOptions timeseriesFields = onPrimary.timeseriesFields();
            ShardKeyPattern registeredKey = key;
            if (timeseriesFields != null) {
                registeredNamespace = BucketsNamespace.of(namespace).toString();
                registeredKey = TimeseriesShardKey.translate(timeseriesFields, key.pattern()).bucketsKey();
            }

            ObjectId epoch = new ObjectId();
            BsonTimestamp timestamp = clock.tick(1);
            ShardedCollection collection = new ShardedCollection(registeredNamespace, UUID.randomUUID(), epoch, timestamp, registeredKey,
                    unique, false, timeseriesFields);
            List<Chunk> initial = InitialChunks.compute(registeredKey, numInitialChunks,
                    // a draining shard (removeShard) is given no initial chunk
                    registered.stream().filter(s -> !s.draining()).map(ShardEntity::id).toList(),
                    primary.id(), onPrimary.empty(), onPrimary.splitKeys(), epoch, timestamp);
            // Every other shard that receives chunks gets the collection and its shard key index too, as MongoDB creates
            // them on each recipient: splitVector and later migrations need the index there. No database version: they
            // are not the database's primary.
            for (ShardEntity owner : registered) {
                if (!owner.id().equals(primary.id()) && initial.stream().anyMatch(c -> c.shard().equals(owner.id()))) {
                    prepared.add(owner.id());
                    peers.prepareShardCollection(owner.id(), owner.host(), namespace.db(), namespace.collection(), key, unique,
                            settings.maxChunkSizeBytes(), null, timeseriesFields == null ? null : timeseriesFields.toDocument());
                }
            }
            ShardedCollection registeredCollection = collections.create(collection, initial.stream()
                    .map(c -> CatalogChunk.placed(collection.uuid(), c.range(), c.shard(), c.lastmod(), timestamp)).toList());
            refresher.refresh(registeredNamespace, prepared);
            return registeredCollection;
        } catch (RuntimeException e) {
            refresher.refresh(registeredNamespace, prepared); // releases their critical sections; they reload "unsharded"
            throw e;
        }
    }

    /**
     * shardCollection again on a sharded time-series collection: a no-op success when the key translates to the
     * registered one and the options, if given, are the registered ones.
     */
    private static ShardedCollection requireSameTimeseries(ShardedCollection existing, ShardKeyPattern key, boolean unique,
            @Nullable BsonDocument timeseries) {
        TimeseriesOptions registered = Objects.requireNonNull(existing.timeseriesFields(), "requireSameTimeseries: a time-series collection");
        if (timeseries != null && !TimeseriesOptions.parse(timeseries, "timeseries").equals(registered)) {
            throw new CommandException(ErrorCode.InvalidOptions, "'timeseries' " + timeseries.toJson() + " differs from the options "
                    + registered.toDocument().toJson() + " of the sharded time-series collection " + existing.namespace());
        }
        ShardedCollectionCatalog.requireSameKey(existing, TimeseriesShardKey.translate(registered, key.pattern()).bucketsKey(), unique);
        return existing;
    }
}
