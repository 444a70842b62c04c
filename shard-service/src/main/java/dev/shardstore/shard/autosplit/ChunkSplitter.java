package dev.shardstore.shard.autosplit;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.shard.command.SplitVector;
import dev.shardstore.shard.migration.ActiveMigrationsRegistry;
import dev.shardstore.shard.migration.MigrationPeers;
import dev.shardstore.shard.migration.MigrationProgress;
import dev.shardstore.shard.versioning.CollectionFilteringInfo;
import dev.shardstore.shard.versioning.CollectionShardingState;
import jakarta.annotation.PreDestroy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Runs auto-split tasks (mongo/src/mongo/db/s/README.md "The auto split task", "Top Chunk Optimization"; MongoDB's {@code ChunkSplitter}) on
 * a small pool of {@code shardstore.shard.autosplit.threads} threads with a bounded queue. One task:
 * <ol>
 *   <li>re-reads the settings (auto-split still on, the maximum chunk size) and the filtering metadata: the chunk must
 *       still be exactly a chunk of this shard, and no migration of an overlapping range may be running here, else the
 *       task ends as {@code stale} (later writes schedule a new one);</li>
 *   <li>walks the chunk's range over the shard key index ({@link SplitVector}): below the maximum chunk size (documents
 *       × the collection's average document size) nothing happens ({@code tooSmall}); otherwise split points cut parts of
 *       about half the maximum size, as MongoDB's splitVector does;</li>
 *   <li>no split point in a chunk at least the maximum size means a single shard key value: the chunk is marked jumbo on
 *       the config service ({@code _configsvrSetJumboFlag}) and not split ({@code jumbo});</li>
 *   <li>top chunk optimization, for a shard key without a hashed field: a split of the chunk starting at MinKey uses the
 *       chunk's first key as its first split point, a split of the chunk ending at MaxKey its last key as its last split
 *       point, so that the new top chunk ({@code [MinKey, first)} or {@code [last, MaxKey)}) takes the following
 *       monotonic inserts;</li>
 *   <li>commits the split on the config service ({@code _configsvrCommitChunkSplit}, which also writes the
 *       {@code split} / {@code multi-split} changelog entries), refreshes the filtering metadata, and for a top chunk
 *       asks {@link TopChunkMover} to move it away (in the background: the task does not wait for the migration).</li>
 * </ol>
 * At most one task per chunk runs (the tracker's split lock), and never two of overlapping ranges of one collection (a
 * task started from an older routing table could otherwise overlap a piece of a newer one). An abandoned task ({@code stale})
 * logs at debug only: it is the normal fate of a chunk that is being migrated while written to, and the next writes retry. Every task ends with one
 * count of {@code shardstore.shard.autosplits{outcome}} and releases the chunk's split lock; the tracker has already
 * started counting afresh.
 */
@Component
public class ChunkSplitter {
    private static final Logger log = LoggerFactory.getLogger(ChunkSplitter.class);
    /** Commit refusals that say the chunk or the collection changed meanwhile: abandoned quietly. */
    private static final Set<ErrorCode> STALE = Set.of(ErrorCode.StaleConfig, ErrorCode.StaleEpoch, ErrorCode.BadValue,
            ErrorCode.ConflictingOperationInProgress, ErrorCode.NamespaceNotSharded, ErrorCode.NamespaceNotFound);

    private final AutoSplitSettings settings;
    private final CollectionShardingState sharding;
    private final SplitVector splitVector;
    private final ActiveMigrationsRegistry migrations;
    private final MigrationPeers peers;
    private final TopChunkMover topChunks;
    private final ShardMetrics metrics;
    private final ThreadPoolExecutor executor;
    private final List<InFlight> inFlight = new ArrayList<>();

    /** A range being split. */
    private record InFlight(String namespace, ChunkRange range, byte[] min, byte[] max) {
        boolean overlaps(InFlight other) {
            return namespace.equals(other.namespace) && Arrays.compareUnsigned(min, other.max) < 0 && Arrays.compareUnsigned(other.min, max) < 0;
        }
    }

    public ChunkSplitter(AutoSplitSettings settings, CollectionShardingState sharding, SplitVector splitVector,
            ActiveMigrationsRegistry migrations, MigrationPeers peers, TopChunkMover topChunks, ShardMetrics metrics,
            AutoSplitProperties properties) {
        this.settings = settings;
        this.sharding = sharding;
        this.splitVector = splitVector;
        this.migrations = migrations;
        this.peers = peers;
        this.topChunks = topChunks;
        this.metrics = metrics;
        this.executor = new ThreadPoolExecutor(properties.threads(), properties.threads(), 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(properties.queueCapacity()), Thread.ofPlatform().name("autosplit-", 1).daemon().factory(),
                new ThreadPoolExecutor.AbortPolicy());
        executor.allowCoreThreadTimeOut(true);
    }

    /**
     * Schedules an auto-split task for {@code chunk}, whose split lock the caller holds; the task releases it.
     *
     * @return false when the queue is full (the caller releases the lock)
     */
    boolean trySplitting(Namespace ns, Chunk chunk, ChunkWrites writes) {
        try {
            executor.execute(() -> run(ns, chunk, writes));
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** The ranges being split now, as {@code {ns, range: {min, max}}} documents (for the {@code shardingState} endpoint). */
    public synchronized List<BsonDocument> inProgress() {
        return inFlight.stream().map(f -> new BsonDocument("ns", new BsonString(f.namespace())).append("range", f.range().toBson())).toList();
    }

    private void run(Namespace ns, Chunk chunk, ChunkWrites writes) {
        ShardKeyPattern key = sharding.known(ns.full()).flatMap(CollectionFilteringInfo::table).map(RoutingTable::shardKey).orElse(null);
        InFlight flight = key == null ? null : new InFlight(ns.full(), chunk.range(), key.encode(chunk.range().min()), key.encode(chunk.range().max()));
        AutoSplitOutcome outcome;
        boolean entered = false;
        try {
            entered = flight != null && enter(flight);
            if (!entered) {
                log.debug("auto-split of chunk {} of {} abandoned: {}", chunk.range(), ns, flight == null
                        ? "the collection is no longer sharded here" : "an overlapping range is being split");
                outcome = AutoSplitOutcome.STALE;
            } else {
                outcome = split(ns, chunk);
            }
        } catch (CommandException e) {
            if (STALE.contains(e.code())) {
                log.debug("auto-split of chunk {} of {} abandoned, the chunk changed meanwhile: {}", chunk.range(), ns, e.getMessage());
                sharding.markStale(ns.full());
                outcome = AutoSplitOutcome.STALE;
            } else {
                log.warn("auto-split of chunk {} of {} failed: {}", chunk.range(), ns, e.getMessage());
                outcome = AutoSplitOutcome.FAILED;
            }
        } catch (RuntimeException e) {
            log.warn("auto-split of chunk {} of {} failed", chunk.range(), ns, e);
            outcome = AutoSplitOutcome.FAILED;
        } finally {
            if (entered && flight != null) { // entered only with a flight
                leave(flight);
            }
            writes.finishSplit();
        }
        metrics.autosplit(outcome.tag());
    }

    private synchronized boolean enter(InFlight flight) {
        if (inFlight.stream().anyMatch(flight::overlaps)) {
            return false;
        }
        inFlight.add(flight);
        return true;
    }

    private synchronized void leave(InFlight flight) {
        inFlight.remove(flight);
    }

    private AutoSplitOutcome split(Namespace ns, Chunk requested) {
        AutoSplitSettings.Effective effective = settings.current(ns.full());
        if (!effective.enabled()) {
            return AutoSplitOutcome.DISABLED;
        }
        RoutingTable table = sharding.get(ns.full()).table().orElse(null);
        if (table == null) {
            return AutoSplitOutcome.STALE;
        }
        ShardKeyPattern key = table.shardKey();
        byte[] min = key.encode(requested.range().min());
        byte[] max = key.encode(requested.range().max());
        Chunk chunk = table.findChunk(min);
        if (!chunk.range().equals(requested.range()) || !chunk.shard().equals(peers.self())) {
            log.debug("auto-split of chunk {} of {} abandoned: it is no longer a chunk of this shard", requested.range(), ns);
            return AutoSplitOutcome.STALE;
        }
        if (migrating(ns, key, min, max)) {
            log.debug("auto-split of chunk {} of {} abandoned: a migration of an overlapping range is running", requested.range(), ns);
            return AutoSplitOutcome.STALE;
        }
        long maxChunkSize = effective.maxChunkSizeBytes();
        SplitVector.KeyRange range = splitVector.range(ns, key, min, max);
        long averageSize = range.averageObjectSize();
        long count = range.count();
        if (count == 0 || count < maxChunkSize / Math.max(1, averageSize)) {
            log.debug("auto-split: chunk {} of {} holds {} documents of about {} bytes, under the maximum {} bytes", chunk.range(), ns,
                    count, averageSize, maxChunkSize);
            return AutoSplitOutcome.TOO_SMALL;
        }
        List<BsonDocument> points = new ArrayList<>(range.bySize(averageSize, Math.max(1, maxChunkSize / 2)));
        if (points.isEmpty()) {
            markJumbo(ns, chunk, count, averageSize);
            return AutoSplitOutcome.JUMBO;
        }
        ChunkRange top = key.isHashed() || key.isHashedPrefix() ? null : topChunk(key, range, chunk, points);
        peers.onConfig(new BsonDocument("_configsvrCommitChunkSplit", new BsonString(ns.full()))
                .append("collEpoch", new BsonObjectId(table.collection().epoch()))
                .append("collTimestamp", table.collection().timestamp())
                .append("min", chunk.range().min())
                .append("max", chunk.range().max())
                .append("splitPoints", new BsonArray(points))
                .append("shard", new BsonString(peers.self())));
        log.info("auto-split chunk {} of {} ({} documents of about {} bytes, maximum chunk size {} bytes) at {} point(s) {}{}", chunk.range(),
                ns, count, averageSize, maxChunkSize, points.size(), points.stream().map(BsonDocument::toJson).toList(),
                top == null ? "" : "; new top chunk " + top);
        refresh(ns);
        if (top != null && effective.balance()) {
            topChunks.moveAway(ns, top);
        }
        return AutoSplitOutcome.SPLIT;
    }

    /**
     * Top chunk optimization: replaces the first split point of the MinKey chunk by its first key, or the last split point
     * of the MaxKey chunk by its last key; returns the new top chunk's range, or null when the chunk is neither or the
     * extreme key cannot serve (the range changed under the walk).
     */
    private static @Nullable ChunkRange topChunk(ShardKeyPattern key, SplitVector.KeyRange range, Chunk chunk, List<BsonDocument> points) {
        if (key.isGlobalMin(chunk.range().min())) {
            Optional<BsonDocument> first = range.firstKey();
            if (first.isPresent() && Arrays.compareUnsigned(key.encode(first.get()), key.encode(chunk.range().min())) > 0
                    && Arrays.compareUnsigned(key.encode(first.get()), key.encode(points.getFirst())) <= 0) {
                points.set(0, first.get());
                return new ChunkRange(chunk.range().min(), first.get());
            }
        } else if (key.isGlobalMax(chunk.range().max())) {
            Optional<BsonDocument> last = range.lastKey();
            if (last.isPresent() && Arrays.compareUnsigned(key.encode(last.get()), key.encode(points.getLast())) >= 0) {
                points.set(points.size() - 1, last.get());
                return new ChunkRange(last.get(), chunk.range().max());
            }
        }
        return null;
    }

    /** Whether a migration of a range overlapping {@code [min, max)} of {@code ns} runs on this shard. */
    private boolean migrating(Namespace ns, ShardKeyPattern key, byte[] min, byte[] max) {
        for (MigrationProgress m : migrations.active()) {
            if (m.namespace().equals(ns) && Arrays.compareUnsigned(key.encode(m.range().min()), max) < 0
                    && Arrays.compareUnsigned(min, key.encode(m.range().max())) < 0) {
                return true;
            }
        }
        return false;
    }

    private void markJumbo(Namespace ns, Chunk chunk, long count, long averageSize) {
        peers.onConfig(new BsonDocument("_configsvrSetJumboFlag", new BsonString(ns.full())).append("min", chunk.range().min())
                .append("jumbo", BsonBoolean.TRUE));
        log.info("auto-split: chunk {} of {} ({} documents of about {} bytes) is over the maximum chunk size but holds a single shard key"
                + " value; marked jumbo", chunk.range(), ns, count, averageSize);
    }

    /** Loads the routing table the split made, so the next writes are counted against the new chunks. */
    private void refresh(Namespace ns) {
        sharding.markStale(ns.full());
        try {
            sharding.refresh(ns.full());
        } catch (CommandException e) {
            log.info("could not refresh {} after its auto-split (the next versioned command will): {}", ns, e.getMessage());
        }
    }

    @PreDestroy
    void shutdown() {
        executor.shutdownNow();
    }
}
