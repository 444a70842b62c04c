package dev.shardstore.shard.migration;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.KeyRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.shard.ShardProperties;
import dev.shardstore.shard.cursor.CursorManager;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.IndexWalk;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.shard.versioning.CollectionFilteringInfo;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CollectionShardingState;
import dev.shardstore.support.failpoint.FailPoints;
import jakarta.annotation.PreDestroy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Deletes orphaned ranges (MongoDB's range deleter; mongo/src/mongo/db/s/README.md "Orphaned range deletion"): one worker thread runs the
 * ready range deletion tasks ({@link RangeDeletionStore}) in the order they became ready, a {@code DELAYED} one not before
 * {@code orphanCleanupDelaySecs} after that. For each task it
 * <ol>
 *   <li>drops the task without deleting anything when its collection instance is gone (dropped, or dropped and
 *       re-created) or when this shard owns part of the range according to freshly loaded filtering metadata (the range
 *       is not orphaned: deleting would lose data);</li>
 *   <li>waits until no open cursor may still return documents of the range ({@link CursorManager#anyMayReturn}: a query
 *       that started before the ownership change keeps the metadata it started with);</li>
 *   <li>deletes the range's documents in batches of {@code rangeDeleterBatchSize}, pausing {@code rangeDeleterBatchDelayMS}
 *       between them, each batch one {@code fromMigrate} unit of work under the collection lock (shared);</li>
 *   <li>reports its rate: a log line (documents, time, documents/s, the time the batches took) and
 *       {@link ShardMetrics#RANGE_DELETION_RATE};</li>
 *   <li>deletes the task.</li>
 * </ol>
 * Tasks survive restarts (the worker starts once the shard is ready). A task that fails (the config service did not
 * answer) is retried on the next round.
 */
@Component
public class RangeDeleter {
    /** The context of this component's own writes: no deadline, no session. */
    private static final OperationContext RANGE_DELETER = OperationContext.internal("rangeDeleter");
    /** Fail point passed before a task's first batch. */
    public static final String BEFORE_RANGE_DELETION = "moveChunk.beforeRangeDeletion";
    private static final Logger log = LoggerFactory.getLogger(RangeDeleter.class);
    private static final Duration IDLE_ROUND = Duration.ofSeconds(1);
    private static final Duration CURSOR_POLL = Duration.ofMillis(100);

    private final RangeDeletionStore tasks;
    private final CollectionCatalog catalog;
    private final CollectionShardingState state;
    private final CollectionShardingRuntime runtime;
    private final CursorManager cursors;
    private final ChunkRangeReader reader;
    private final DocumentStore store;
    private final WriteUnitOfWork units;
    private final FailPoints failPoints;
    private final MigrationProperties properties;
    private final String shardName;
    private final ShardMetrics metrics;
    private final Object signal = new Object();
    private volatile boolean stopped;
    private @Nullable Thread worker;

    public RangeDeleter(RangeDeletionStore tasks, CollectionCatalog catalog, CollectionShardingState state, CollectionShardingRuntime runtime,
            CursorManager cursors, ChunkRangeReader reader, DocumentStore store, WriteUnitOfWork units, FailPoints failPoints,
            MigrationProperties properties, ShardProperties shard, ShardMetrics metrics) {
        this.metrics = metrics;
        this.tasks = tasks;
        this.catalog = catalog;
        this.state = state;
        this.runtime = runtime;
        this.cursors = cursors;
        this.reader = reader;
        this.store = store;
        this.units = units;
        this.failPoints = failPoints;
        this.properties = properties;
        this.shardName = shard.name();
    }

    /** Starts the worker once the shard serves (tasks of an earlier life included). */
    @EventListener(ApplicationReadyEvent.class)
    public synchronized void start() {
        if (worker == null) {
            worker = Thread.ofPlatform().daemon().name("range-deleter").start(this::work);
        }
    }

    @PreDestroy
    void stop() {
        stopped = true;
        wake();
    }

    /** Tells the worker a task became ready (it also looks every second). */
    public void wake() {
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    /**
     * Waits until the range deletion task of migration {@code id} is gone (run, or dropped), at most {@code max}.
     *
     * @return false when {@code max} passed first
     */
    public boolean awaitDeleted(UUID id, Duration max) {
        return await(() -> tasks.find(id).isEmpty(), max);
    }

    /**
     * {@code cleanupOrphaned}: waits until {@code namespace} has no range deletion task left on this shard (pending ones
     * included: a migration in flight may still leave orphans), at most {@code max}.
     *
     * @throws CommandException ExceededTimeLimit (262) when tasks remain after {@code max}
     */
    public void awaitNoOrphans(Namespace namespace, Duration max) {
        if (!await(() -> tasks.ofNamespace(namespace).isEmpty(), max)) {
            throw new CommandException(ErrorCode.ExceededTimeLimit, "orphaned ranges of " + namespace + " remain after " + max
                    + ": " + tasks.ofNamespace(namespace).size() + " range deletion task(s) pending or waiting for orphanCleanupDelaySecs");
        }
    }

    private boolean await(BooleanSupplier done, Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        while (!done.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            synchronized (signal) {
                try {
                    signal.wait(Math.max(1, Math.min(200, left / 1_000_000)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return true;
    }

    private void work() {
        while (!stopped) {
            Duration idle = IDLE_ROUND;
            try {
                idle = runDueTasks();
            } catch (RuntimeException e) {
                log.warn("range deletion round failed; retrying: {}", e.toString());
            }
            synchronized (signal) {
                try {
                    signal.wait(Math.max(1, idle.toMillis()));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** Runs every due task; returns how long until the next one is due (at most a second). */
    private Duration runDueTasks() {
        Duration next = IDLE_ROUND;
        for (RangeDeletionTask task : tasks.ready()) {
            if (stopped) {
                break;
            }
            Instant readyAt = Objects.requireNonNull(task.readyAt(), "a task that is no longer pending was made ready");
            Instant due = task.whenToClean() == RangeDeletionTask.WhenToClean.DELAYED ? readyAt.plus(properties.orphanCleanupDelay()) : readyAt;
            Duration wait = Duration.between(Instant.now(), due);
            if (!wait.isNegative() && !wait.isZero()) {
                next = wait.compareTo(next) < 0 ? wait : next;
                continue;
            }
            try {
                run(task);
            } catch (CommandException e) {
                log.warn("range deletion of {} {} stopped; it is retried: {}", task.namespace(), task.range(), e.getMessage());
            }
        }
        return next;
    }

    private void run(RangeDeletionTask task) {
        Namespace ns = task.namespace();
        Optional<CollectionInfo> collection = catalog.find(ns).filter(c -> c.uuid().equals(task.collectionUuid()));
        if (collection.isEmpty()) {
            log.info("range deletion task {} of {} dropped: the collection instance is gone", task.id(), ns);
            finish(task);
            return;
        }
        KeyRange keys = task.keyRange();
        state.markStale(ns.full());
        CollectionFilteringInfo info = state.refresh(ns.full());
        if (info.table().map(table -> ownsPart(table, keys)).orElse(true)) {
            log.error("range deletion task {} of {} {} dropped without deleting: this shard owns (part of) the range, or the collection"
                    + " is not sharded any more", task.id(), ns, task.range());
            finish(task);
            return;
        }
        while (cursors.anyMayReturn(ns, keys.min(), keys.max())) {
            sleep(CURSOR_POLL);
            if (stopped) {
                return;
            }
        }
        failPoints.hit(BEFORE_RANGE_DELETION);
        IndexWalk.Source index = reader.index(collection.get(), task.keyPattern());
        long deleted = 0;
        long began = System.nanoTime();
        long deleting = 0;
        while (!stopped) {
            long batchStart = System.nanoTime();
            int batch = runtime.shared(ns, () -> deleteBatch(task, index, keys));
            deleting += System.nanoTime() - batchStart;
            if (batch == 0) {
                break;
            }
            deleted += batch;
            metrics.orphansDeleted(batch);
            sleep(properties.rangeDeleterBatchDelay());
        }
        if (!stopped) {
            long elapsed = Math.max(1, System.nanoTime() - began);
            if (deleted > 0) {
                metrics.rangeDeletionFinished(deleted, elapsed);
            }
            log.info("range deletion task {} deleted {} orphaned documents of {} {} in {} ms: {} documents/s (batches of at most {}"
                    + " took {} ms of it, with {} between them)", task.id(), deleted, ns, task.range(), elapsed / 1_000_000,
                    Math.round(deleted * 1e9 / elapsed), properties.rangeDeleterBatchSize(), deleting / 1_000_000,
                    properties.rangeDeleterBatchDelay());
            finish(task);
        }
    }

    /** One batch, under the collection lock: what is left of the range, deleted in one unit of work; 0 when none is left. */
    private int deleteBatch(RangeDeletionTask task, IndexWalk.Source index, KeyRange keys) {
        Optional<CollectionInfo> collection = catalog.find(task.namespace()).filter(c -> c.uuid().equals(task.collectionUuid()));
        if (collection.isEmpty()) {
            return 0; // dropped meanwhile: nothing left to delete
        }
        List<StoredDocument> page = reader.read(collection.get(), index, keys, null, properties.rangeDeleterBatchSize(), Long.MAX_VALUE)
                .documents();
        if (page.isEmpty()) {
            return 0;
        }
        units.writeFromMigrate(RANGE_DELETER, inUnit -> store.delete(inUnit, collection.get(), store.lockByIds(collection.get(),
                page.stream().map(StoredDocument::id).toList())));
        return page.size();
    }

    private boolean ownsPart(RoutingTable table, KeyRange keys) {
        return table.overlapping(keys.min(), keys.max()).stream().anyMatch(chunk -> chunk.shard().equals(shardName));
    }

    private void finish(RangeDeletionTask task) {
        tasks.delete(task.id());
        wake();
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
