package dev.shardstore.config.catalog;

import dev.shardstore.contracts.version.VersionRules;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.config.outbox.Outbox;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Sort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code config.collections} with their chunks: registering a newly sharded collection, reading routing tables,
 * refining the shard key and removing a dropped collection. Every change is one transaction with its
 * {@code ROUTING_CHANGED} outbox event.
 */
@Service
public class ShardedCollectionCatalog {
    private final CollectionRepository collections;
    private final ChunkCatalog chunks;
    private final Outbox outbox;
    private final LogicalClock clock;
    private final JdbcClient jdbc;
    private final ShardingDdlCoordinators coordinators;
    private final TransactionTemplate tx;
    private final TransactionTemplate snapshot;

    public ShardedCollectionCatalog(CollectionRepository collections, ChunkCatalog chunks, Outbox outbox, LogicalClock clock, JdbcClient jdbc,
            ShardingDdlCoordinators coordinators, PlatformTransactionManager transactions) {
        this.collections = collections;
        this.chunks = chunks;
        this.outbox = outbox;
        this.clock = clock;
        this.jdbc = jdbc;
        this.coordinators = coordinators;
        this.tx = new TransactionTemplate(transactions);
        // a routing table must not mix the collection entry of one commit with the chunks of the next
        this.snapshot = new TransactionTemplate(transactions);
        snapshot.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
        snapshot.setReadOnly(true);
    }

    /** A routing table as {@code _configsvrGetRoutingTable} answers it; {@code collection} null means unsharded. */
    public record RoutingSnapshot(@Nullable ShardedCollection collection, List<CatalogChunk> chunks, boolean full) {}

    public Optional<ShardedCollection> find(String namespace) {
        return collections.findById(namespace).map(CollectionEntity::toCollection);
    }

    /** Every sharded collection, ordered by namespace. */
    public List<ShardedCollection> list() {
        return collections.findAll(Sort.by("namespace")).stream().map(CollectionEntity::toCollection).toList();
    }

    /**
     * The routing table of {@code namespace}: with {@code since} of the current epoch and timestamp only the chunks
     * newer than it (incremental, {@code full: false}), otherwise every chunk ({@code full: true}).
     */
    public RoutingSnapshot routingTable(String namespace, @Nullable ChunkVersion since) {
        return snapshot.execute(status -> {
            Optional<ShardedCollection> found = find(namespace);
            if (found.isEmpty()) {
                return new RoutingSnapshot(null, List.of(), true);
            }
            ShardedCollection collection = found.get();
            if (since != null && since.epoch().equals(collection.epoch()) && since.timestamp().equals(collection.timestamp())) {
                return new RoutingSnapshot(collection, chunks.newerThan(collection.uuid(), since), false);
            }
            return new RoutingSnapshot(collection, chunks.all(collection.uuid()), true);
        });
    }

    /**
     * Registers a newly sharded collection with its initial chunks, unless another call registered it first.
     *
     * @return the registered collection: {@code collection}, or the one registered first when it has the same key
     * @throws CommandException AlreadyInitialized (23) when it is already sharded with another key or unique flag;
     *                          ConflictingOperationInProgress (117) while a dropCollection of the namespace is unfinished
     */
    public ShardedCollection create(ShardedCollection collection, List<CatalogChunk> initialChunks) {
        return tx.execute(status -> {
            // serializes concurrent shardCollection calls of one namespace between the check and the insert, and them with
            // the start of a dropCollection coordinator
            lockNamespace(jdbc, collection.namespace());
            coordinators.requireNone(collection.namespace(), "shardCollection");
            Optional<ShardedCollection> existing = find(collection.namespace());
            if (existing.isPresent()) {
                requireSameKey(existing.get(), collection.key(), collection.unique());
                return existing.get();
            }
            collections.saveAndFlush(new CollectionEntity(collection));
            chunks.insert(collection.key(), initialChunks);
            outbox.appendRoutingChanged(collection.namespace(), collection.epoch(), initialChunks.getLast().lastmod(),
                    initialChunks.stream().map(CatalogChunk::shard).toList());
            return collection;
        });
    }

    /**
     * Takes {@code namespace}'s registration lock until the end of the caller's transaction (a PostgreSQL advisory
     * lock): shardCollection's registration and the start of a dropCollection coordinator hold it.
     */
    static void lockNamespace(JdbcClient jdbc, String namespace) {
        jdbc.sql("SELECT pg_advisory_xact_lock(hashtext(?))").param("collection:" + namespace).query().singleValue();
    }

    /**
     * Accepts shardCollection of an already sharded collection with the same key and unique flag (a no-op, as in
     * MongoDB).
     *
     * @throws CommandException AlreadyInitialized (23) naming both keys otherwise
     */
    public static void requireSameKey(ShardedCollection existing, ShardKeyPattern key, boolean unique) {
        if (existing.key().size() != key.size() || !sameFields(existing.key(), key, key.size()) || existing.unique() != unique) {
            throw new CommandException(ErrorCode.AlreadyInitialized, "collection " + existing.namespace() + " is already sharded with key "
                    + existing.key().pattern().toJson() + (existing.unique() ? " (unique)" : "") + ", not " + key.pattern().toJson()
                    + (unique ? " (unique)" : ""));
        }
    }

    /**
     * refineCollectionShardKey: the new key must extend the current one (same fields first, in order, same kinds);
     * chunk bounds get MinKey for the new fields (MaxKey for the global maximum), the collection and every chunk a new
     * epoch and timestamp while chunks keep their major|minor. The same key again is a no-op.
     *
     * @return the collection after the refinement
     * @throws CommandException NamespaceNotSharded; InvalidOptions naming {@code key} when it does not extend the current key;
     *                          ConflictingOperationInProgress (117) while a dropCollection of the namespace is unfinished
     */
    public ShardedCollection refine(String namespace, ShardKeyPattern newKey) {
        return tx.execute(status -> {
            CollectionEntity entity = collections.findForUpdate(namespace).orElseThrow(() -> notSharded(namespace));
            coordinators.requireNone(namespace, "refineCollectionShardKey");
            ShardedCollection current = entity.toCollection();
            ShardKeyPattern oldKey = current.key();
            if (newKey.size() < oldKey.size() || !sameFields(oldKey, newKey, oldKey.size())) {
                throw new CommandException(ErrorCode.InvalidOptions, "refineCollectionShardKey: the new 'key' " + newKey.pattern().toJson()
                        + " must start with the current shard key " + oldKey.pattern().toJson() + " of " + namespace);
            }
            if (newKey.size() == oldKey.size()) {
                return current;
            }
            ObjectId epoch = new ObjectId();
            BsonTimestamp timestamp = clock.tick(1);
            entity.refine(newKey, epoch, timestamp);
            ChunkVersion latest = null;
            for (CatalogChunk c : chunks.all(current.uuid())) {
                ChunkRange extended = new ChunkRange(extend(c.range().min(), oldKey, newKey), extend(c.range().max(), oldKey, newKey));
                CatalogChunk refined = c.withRange(extended).withVersion(VersionRules.refine(c.lastmod(), epoch, timestamp));
                chunks.update(newKey, refined);
                latest = latest == null || refined.lastmod().compareTo(latest) > 0 ? refined.lastmod() : latest;
            }
            outbox.appendRoutingChanged(namespace, epoch, latest, chunks.shards(current.uuid()));
            return entity.toCollection();
        });
    }

    /**
     * collMod of a sharded time-series collection's bucketing ({@code timeseries: {granularity} | {bucketMaxSpanSeconds,
     * bucketRoundingSeconds}}, see {@link TimeseriesOptions#modifiedBy}) on its buckets namespace: {@code config.collections}'
     * {@code timeseriesFields} is the source of truth of the bucketing (mongo/src/mongo/db/s/README_timeseries.md "Sharding
     * metadata"). As MongoDB does, one chunk per owning shard gets a new major version in the same transaction, so
     * every shard and router holding the old routing table meets a newer version, refreshes and so reads the new
     * bucketing before it rounds {@code control.min.<timeField>} or builds a bucket predicate again. A modification
     * that changes nothing (a retried collMod) changes no version.
     *
     * @return the collection afterwards
     * @throws CommandException NamespaceNotSharded (118); InvalidOptions (72) when the collection is not time-series,
     *                          or the modification's errors; ConflictingOperationInProgress (117) while a
     *                          dropCollection of the namespace is unfinished
     */
    public ShardedCollection modifyTimeseries(String namespace, BsonValue modification) {
        return tx.execute(status -> {
            CollectionEntity entity = collections.findForUpdate(namespace).orElseThrow(() -> notSharded(namespace));
            coordinators.requireNone(namespace, "collMod");
            ShardedCollection current = entity.toCollection();
            TimeseriesOptions fields = current.timeseriesFields();
            if (fields == null) {
                throw new CommandException(ErrorCode.InvalidOptions, "collMod 'timeseries' on " + namespace + ", which is not a time-series collection");
            }
            TimeseriesOptions modified = fields.modifiedBy(modification, "collMod.timeseries");
            if (modified.equals(fields)) {
                return current;
            }
            entity.setTimeseriesFields(modified);
            Map<String, CatalogChunk> newestPerShard = new TreeMap<>();
            for (CatalogChunk c : chunks.all(current.uuid())) {
                newestPerShard.merge(c.shard(), c, (a, b) -> a.lastmod().compareTo(b.lastmod()) >= 0 ? a : b);
            }
            ChunkVersion version = chunks.collectionVersion(current.uuid()).orElseThrow();
            for (CatalogChunk newest : newestPerShard.values()) {
                version = VersionRules.migratedChunk(version);
                chunks.update(current.key(), newest.withVersion(version));
            }
            List<String> owners = List.copyOf(newestPerShard.keySet());
            outbox.appendRoutingChanged(namespace, current.epoch(), version, owners);
            return entity.toCollection();
        });
    }

    /**
     * Sets the balancing settings of {@code namespace} ({@code configureCollectionBalancing}, an update of
     * {@code config.collections}' {@code noBalance}); a null argument keeps the current value. Only the balancer reads them:
     * no chunk version changes.
     *
     * @param maxChunkSizeBytes positive bytes, or 0 to fall back to the cluster's {@code chunksize}
     * @return the collection afterwards
     * @throws CommandException NamespaceNotSharded (118) when the collection is not sharded
     */
    public ShardedCollection configureBalancing(String namespace, @Nullable Long maxChunkSizeBytes, @Nullable Boolean enableAutoMerger,
            @Nullable Boolean noBalance) {
        return tx.execute(status -> {
            CollectionEntity entity = collections.findForUpdate(namespace).orElseThrow(() -> notSharded(namespace));
            entity.configureBalancing(maxChunkSizeBytes, enableAutoMerger, noBalance);
            return entity.toCollection();
        });
    }

    /**
     * Removes the collection instance {@code uuid} of {@code namespace} and its chunks, publishing
     * {@code ROUTING_CHANGED} with no collection version.
     *
     * @return false when that instance is no longer registered (already dropped, or dropped and sharded again)
     */
    public boolean remove(String namespace, UUID uuid) {
        return Boolean.TRUE.equals(tx.execute(status -> {
            Optional<CollectionEntity> entity = collections.findForUpdate(namespace);
            if (entity.isEmpty() || !entity.get().toCollection().uuid().equals(uuid)) {
                return false;
            }
            List<String> owners = chunks.shards(uuid);
            collections.delete(entity.get());
            collections.flush(); // chunks go with it (ON DELETE CASCADE)
            outbox.appendRoutingChanged(namespace, entity.get().toCollection().epoch(), null, owners);
            return true;
        }));
    }

    private static boolean sameFields(ShardKeyPattern a, ShardKeyPattern b, int count) {
        List<String> fa = a.fields();
        List<String> fb = b.fields();
        for (int i = 0; i < count; i++) {
            // fields() are the pattern's own keys, so each lookup finds its value
            if (!fa.get(i).equals(fb.get(i))
                    || a.pattern().getOrDefault(fa.get(i), BsonNull.VALUE).isString()
                            != b.pattern().getOrDefault(fb.get(i), BsonNull.VALUE).isString()) {
                return false;
            }
        }
        return true;
    }

    private static BsonDocument extend(BsonDocument bound, ShardKeyPattern oldKey, ShardKeyPattern newKey) {
        BsonValue filler = bound.equals(oldKey.globalMax()) ? new BsonMaxKey() : new BsonMinKey();
        BsonDocument extended = bound.clone();
        newKey.fields().subList(oldKey.size(), newKey.size()).forEach(f -> extended.append(f, filler));
        return extended;
    }

    private static CommandException notSharded(String namespace) {
        return new CommandException(ErrorCode.NamespaceNotSharded, "collection " + namespace + " is not sharded");
    }
}
