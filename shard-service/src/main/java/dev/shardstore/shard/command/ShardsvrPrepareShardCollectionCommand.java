package dev.shardstore.shard.command;

import dev.shardstore.shard.write.IndexCreator;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.contracts.timeseries.TimeseriesShardKey;
import dev.shardstore.shard.ShardProperties;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import dev.shardstore.shard.storage.IndexCatalog;
import dev.shardstore.shard.storage.IndexSpec;
import dev.shardstore.shard.versioning.CollectionAccess;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CriticalSectionPhase;
import java.time.Duration;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionCollation;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.IndexWalk;
import java.util.List;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * {@code _shardsvrPrepareShardCollection: <coll>} on the collection's database (the primary shard's half of
 * shardCollection, docs/sharding-protocol.md) with {@code key}, {@code unique?} (default false) and
 * {@code maxChunkSizeBytes?} (default 128 MiB) → {@code {empty, count, splitKeys: [...], ok: 1}}. Holds the
 * collection exclusively, creating it when missing:
 * <ul>
 *   <li>empty: creates the shard key index (named as MongoDB names it, {@code country_1_name_1},
 *       {@code _id_hashed}; unique when asked), except for {@code {_id: 1}}, which the {@code _id} index serves;
 *       no split keys;</li>
 *   <li>not empty: an index whose key starts with the shard key must exist ({@link ShardKeyIndex}) — not sparse,
 *       partial or multikey, and for {@code unique} a unique index on exactly the shard key (MongoDB manual
 *       "shardCollection": its requirements); without one, a document whose shard key holds an array is ShardKeyNotFound
 *       (61) naming the field, else InvalidOptions (72) naming the index to create. The split keys
 *       ({@link SplitPoints#bySize}, walking that index) cut the documents, in shard key order, into chunks of
 *       about {@code maxChunkSizeBytes}, counting each document as the collection's average document size.</li>
 * </ul>
 * Other errors: InvalidOptions for a unique hashed key, and for a unique index of the collection that the key does not
 * lead (MongoDB's message: uniqueness can't be maintained unless the shard key is a prefix); BadValue for a malformed key; the index build's errors.
 *
 * <p>On a time-series namespace — {@code timeseries} options given, or the collection is already one here — the
 * key is the one given on the time-series namespace (mongo/src/mongo/db/s/README_timeseries.md "shardCollection command"): it
 * is checked and translated ({@link TimeseriesShardKey}), the time-series collection is created with the options
 * when missing (given options that differ from an existing collection's are InvalidOptions naming
 * {@code timeseries}), and the buckets collection {@code system.buckets.<coll>} is prepared as above on the
 * translated key, its index being the one of mongo/src/mongo/db/s/README_timeseries.md "shardCollection command" ({@code {control.min.t: 1, control.max.t: 1}} for a time key),
 * named as MongoDB names an index on the given key. The reply adds {@code timeseriesFields} (the options). A
 * unique key is InvalidOptions: time-series collections have no unique indexes.
 *
 * <p>A successful prepare leaves the collection in its critical section, phase 2 (versioned reads and writes wait;
 * {@link CollectionShardingRuntime}), until the config service's {@code _shardsvrRefreshCollection} after the commit,
 * or {@code critical-section-timeout} when that never comes (the shardCollection coordinator is not persisted). The
 * section is entered under the exclusive collection lock, so the writes already past their version check finish
 * first and are counted, and none can land between the emptiness check and the new routing, where it would be an
 * orphan.
 */
@Component
public class ShardsvrPrepareShardCollectionCommand extends ShardCommand {
    private static final long DEFAULT_MAX_CHUNK_SIZE_BYTES = 128L * 1024 * 1024;

    private final CollectionShardingRuntime runtime;
    private final CollectionCatalog catalog;
    private final IndexCreator creator;
    private final DocumentStore store;
    private final ShardKeyIndex shardKeyIndex;
    private final ShardKeyScan scan;
    private final Duration criticalSectionTimeout;
    private final TimeseriesCollections timeseries;
    private final TimeseriesCreator timeseriesCreator;
    private final IndexCatalog indexes;

    public ShardsvrPrepareShardCollectionCommand(CommandInvoker invoker, CollectionShardingRuntime runtime, CollectionCatalog catalog,
            IndexCreator creator, IndexCatalog indexes, DocumentStore store, ShardKeyIndex shardKeyIndex, ShardKeyScan scan,
            ShardProperties properties, TimeseriesCollections timeseries, TimeseriesCreator timeseriesCreator) {
        super(invoker);
        this.timeseries = timeseries;
        this.timeseriesCreator = timeseriesCreator;
        this.indexes = indexes;
        this.runtime = runtime;
        this.catalog = catalog;
        this.creator = creator;
        this.store = store;
        this.shardKeyIndex = shardKeyIndex;
        this.scan = scan;
        this.criticalSectionTimeout = properties.criticalSectionTimeout();
    }

    @Override
    public String name() {
        return "_shardsvrPrepareShardCollection";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.EXCLUSIVE;
    }

    @Override
    protected boolean servesTimeseries() {
        return true;
    }

    /** The reason of the critical section a prepare enters, which {@code _shardsvrRefreshCollection} exits. */
    static BsonDocument criticalSectionReason(Namespace ns) {
        return new BsonDocument("command", new BsonString("shardCollection")).append("ns", new BsonString(ns.full()));
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        ShardKeyPattern key = ShardKeyPattern.of(args.document(args.required(command, "key", "key"), "key"));
        boolean unique = args.optionalBoolean(command, "unique", "unique", false);
        long maxChunkSizeBytes = maxChunkSizeBytes(args, command);
        if (unique && key.isHashed()) {
            throw new CommandException(ErrorCode.InvalidOptions, "hashed shard keys cannot be declared unique: 'key' "
                    + key.pattern().toJson() + " with 'unique: true'");
        }
        BsonValue timeseriesSpec = command.get("timeseries");
        Optional<TimeseriesOptions> existing = timeseries.options(opCtx, ns);
        if (timeseriesSpec == null && existing.isEmpty()) {
            return inCriticalSection(ns, () -> prepare(opCtx, catalog.create(opCtx, ns, new BsonDocument()).collection(), key, null, unique, maxChunkSizeBytes));
        }
        if (unique) {
            throw new CommandException(ErrorCode.InvalidOptions, "'unique' cannot be true for the time-series collection " + ns);
        }
        TimeseriesOptions options = timeseriesSpec == null ? existing.orElseThrow() : TimeseriesOptions.parse(timeseriesSpec, "timeseries");
        if (existing.isPresent() && !existing.get().equals(options)) {
            throw new CommandException(ErrorCode.InvalidOptions, "'timeseries' " + options.toDocument().toJson() + " differs from the options "
                    + existing.get().toDocument().toJson() + " of the existing time-series collection " + ns);
        }
        TimeseriesShardKey translated = TimeseriesShardKey.translate(options, key.pattern());
        BsonDocument reply = inCriticalSection(TimeseriesCollections.bucketsOf(ns), () -> prepare(opCtx,
                timeseriesCreator.create(opCtx, ns, options, new BsonDocument("timeseries", options.toDocument())),
                translated.bucketsKey(), translated, false, maxChunkSizeBytes));
        return reply.append("timeseriesFields", options.toDocument());
    }

    /** Runs {@code prepare} with {@code ns} entered into its critical section, which stays entered unless it fails. */
    private BsonDocument inCriticalSection(Namespace ns, java.util.function.Supplier<BsonDocument> prepare) {
        BsonDocument reason = criticalSectionReason(ns);
        runtime.enterCriticalSection(ns, CriticalSectionPhase.COMMIT, reason, criticalSectionTimeout);
        try {
            return prepare.get();
        } catch (RuntimeException e) {
            runtime.exitCriticalSection(ns, reason); // nothing will be committed: versioned commands need not wait
            throw e;
        }
    }

    /**
     * Prepares {@code c} for sharding on {@code key}.
     *
     * @param timeseriesKey the translated key when {@code c} is a time-series buckets collection, else null
     */
    private BsonDocument prepare(OperationContext opCtx, CollectionInfo c, ShardKeyPattern key, @Nullable TimeseriesShardKey timeseriesKey, boolean unique,
            long maxChunkSizeBytes) {
        requireSimpleDefaultCollation(c);
        requireUniqueIndexesCompatible(c, key);
        long count = store.count(c);
        List<BsonDocument> splitKeys = List.of();
        if (count == 0 && timeseriesKey != null) {
            createTimeseriesShardKeyIndex(opCtx, c, timeseriesKey);
        } else if (count == 0) {
            createShardKeyIndex(opCtx, c, key, unique);
        } else {
            IndexWalk.Source index = requireShardKeyIndex(c, key, unique);
            SplitPoints.Cursor range = shardKeyIndex.range(c, index, key, key.encode(key.globalMin()), key.encode(key.globalMax()));
            splitKeys = SplitPoints.bySize(range, shardKeyIndex.averageObjectSize(c), maxChunkSizeBytes);
        }
        return Replies.ok(new BsonDocument("empty", BsonBoolean.valueOf(count == 0))
                .append("count", new BsonInt64(count))
                .append("splitKeys", new BsonArray(splitKeys)));
    }

    /**
     * Refuses to shard a collection with a non-simple default collation: the router would have to target and merge
     * commands without a collation under that default, and the routing table does not carry it (MongoDB keeps it as
     * {@code defaultCollation} in {@code config.collections}).
     *
     * @throws CommandException NotImplemented (238) naming {@code collation}
     */
    private static void requireSimpleDefaultCollation(CollectionInfo c) {
        if (!CollectionCollation.defaultOf(c).isSimple()) {
            throw new CommandException(ErrorCode.NotImplemented, "sharding " + c.namespace() + ", whose default 'collation' is "
                    + c.options().getDocument(CollectionCollation.OPTION).toJson() + ", is not implemented: only collections with"
                    + " the simple default collation can be sharded");
        }
    }

    /**
     * The optional positive {@code maxChunkSizeBytes} (also splitVector's).
     *
     * @throws CommandException TypeMismatch or BadValue naming the field
     */
    static long maxChunkSizeBytes(CommandArgs args, BsonDocument command) {
        if (!command.containsKey("maxChunkSizeBytes")) {
            return DEFAULT_MAX_CHUNK_SIZE_BYTES;
        }
        long value = args.nonNegative(command.get("maxChunkSizeBytes"), "maxChunkSizeBytes");
        if (value == 0) {
            throw new CommandException(ErrorCode.BadValue, "'maxChunkSizeBytes' must be positive");
        }
        return value;
    }

    /**
     * The index of mongo/src/mongo/db/s/README_timeseries.md "shardCollection command" backing a time-series shard key, unless an index on that key exists (the one create
     * made serves {@code {m: 1, t: 1}}); named as MongoDB names an index on the key given on the time-series namespace.
     */
    private void createTimeseriesShardKeyIndex(OperationContext opCtx, CollectionInfo c, TimeseriesShardKey key) {
        String name = CreateIndexesCommand.validate(new BsonDocument("key", key.viewKey())).getString("name").getValue();
        if (shardKeyIndex.find(c, key.bucketsKey(), false).isEmpty()) {
            creator.createAll(opCtx, c, List.of(CreateIndexesCommand.validate(new BsonDocument("key", key.index()).append("name", new BsonString(name)))));
        }
    }

    private void createShardKeyIndex(OperationContext opCtx, CollectionInfo c, ShardKeyPattern key, boolean unique) {
        if (ShardKeyIndex.isIdKey(key)) {
            return;
        }
        BsonDocument spec = new BsonDocument("key", key.pattern());
        if (unique) {
            spec.append("unique", BsonBoolean.TRUE);
        }
        creator.createAll(opCtx, c, List.of(CreateIndexesCommand.validate(spec)));
    }

    /**
     * The index supporting the shard key.
     *
     * @throws CommandException ShardKeyNotFound (61) when a document's shard key holds an array (that makes the
     *                          index multikey, so the precise error comes first), else InvalidOptions (72)
     */
    private IndexWalk.Source requireShardKeyIndex(CollectionInfo c, ShardKeyPattern key, boolean unique) {
        return shardKeyIndex.find(c, key, unique).orElseThrow(() -> {
            scan.requireNoArrays(c, key);
            return new CommandException(ErrorCode.InvalidOptions, "Please create an index that starts with the proposed "
                    + "shard key before sharding the collection " + c.namespace() + ": " + (unique ? "a unique index " : "an index ")
                    + key.pattern().toJson() + " (not sparse, partial or multikey)");
        });
    }

    /**
     * Every unique index of the collection must be one {@code key} can enforce
     * ({@link ShardKeyPattern#isUniqueIndexCompatible}), whether the collection is empty or not (MongoDB manual
     * "shardCollection": its requirements).
     *
     * @throws CommandException InvalidOptions (72) with MongoDB's message naming the index key and the proposed key
     */
    private void requireUniqueIndexesCompatible(CollectionInfo c, ShardKeyPattern key) {
        for (IndexSpec index : indexes.list(c)) {
            if (index.unique() && !key.isUniqueIndexCompatible(index.key())) {
                throw new CommandException(ErrorCode.InvalidOptions, "can't shard collection '" + c.namespace() + "' with unique index on "
                        + index.key().toJson() + " and proposed shard key " + key.pattern().toJson()
                        + ". Uniqueness can't be maintained unless shard key is a prefix");
            }
        }
    }
}
