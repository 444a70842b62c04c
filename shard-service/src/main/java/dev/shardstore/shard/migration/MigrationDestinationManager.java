package dev.shardstore.shard.migration;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.KeyRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.shard.command.CreateIndexesCommand;
import dev.shardstore.shard.write.IndexCreator;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.storage.MigratedSessionHistory;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CollectionShardingState;
import dev.shardstore.support.failpoint.FailPoints;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The recipient of a chunk migration (MongoDB's {@code MigrationDestinationManager}; mongo/src/mongo/db/s/README.md "The live migration
 * protocol", "Orphaned range deletion"). {@code _recvChunkStart} registers the receipt and starts a thread that
 * <ol>
 *   <li>loads the collection's filtering metadata (so its writes record the shard key in the oplog), creates the
 *       collection with the donor's options and indexes where missing ({@code listCollections}, {@code listIndexes} on
 *       the donor), waits for its own overlapping range deletion tasks to finish (at most
 *       {@code range-deleter-wait-timeout}, else ChunkRangeCleanupPending) and writes its pending range deletion task;</li>
 *   <li>state {@code clone}: pulls the range with {@code _migrateClone} pages of stored rows ({@link ClonePageBytes}),
 *       asking for the next page while up to {@code clone-writers} pages are written, and upserts each page in one
 *       {@code fromMigrate} unit of work: one multi-row insert of the documents and one of each index's entries, then a
 *       replacement of those whose {@code _id} was already here (fail point {@link #DURING_CLONE} after each page);</li>
 *   <li>state {@code catchup}: pulls the range's oplog entries with {@code _transferMods} from the donor's clone start,
 *       and applies them in order: an insert or update as an upsert of its post-image — or as a delete when that
 *       post-image's shard key left the range — and a delete by {@code _id} ({@link #DURING_CATCHUP}); once a pull reaches
 *       the donor's all-durable point, state {@code steady}, and it keeps pulling;</li>
 *   <li>on {@code _recvChunkCommit} (the donor blocks writes), state {@code commitStart}: pulls until a pull returns
 *       nothing, then state {@code done} and {@code _recvChunkCommit} answers.</li>
 * </ol>
 * Any error is state {@code fail} (the donor aborts). The donor's decision comes with {@code _recvChunkDecision}: an abort
 * stops the receipt before its next write and makes its range deletion task ready (its documents are orphans); a commit
 * deletes the task. A recipient that restarts loses the receipt: the donor sees {@code _recvChunkStatus} answer
 * {@code active: false} and aborts.
 */
@Component
public class MigrationDestinationManager {
    /** Runs a clone page's write, while the receipt's own thread asks the donor for the next page. */
    private static final Executor CLONE_WRITERS = task -> Thread.ofVirtual().name("recipient-clone-writer").start(task);
    /** The context of this component's own writes: no deadline, no session. */
    private static final OperationContext RECIPIENT = OperationContext.internal("migrationRecipient");
    /** Fail point after each cloned batch is applied. */
    public static final String DURING_CLONE = "recipient.duringClone";
    /** Fail point after each non-empty batch of changes is applied before the commit. */
    public static final String DURING_CATCHUP = "recipient.duringCatchup";
    /**
     * Fail point inside each batch's unit of work (a clone page, a batch of changes), after its statements and before its
     * commit: an error there rolls the whole batch back.
     */
    public static final String BATCH_WRITTEN = "recipient.batchWritten";
    static final String READY = "ready";
    static final String CLONE = "clone";
    static final String CATCHUP = "catchup";
    static final String STEADY = "steady";
    static final String COMMIT_START = "commitStart";
    static final String DONE = "done";
    static final String FAIL = "fail";
    private static final int RECENT = 16;
    private static final Logger log = LoggerFactory.getLogger(MigrationDestinationManager.class);

    private final ActiveMigrationsRegistry registry;
    private final MigrationPeers peers;
    private final CollectionCatalog catalog;
    private final IndexCreator indexCreator;
    private final CollectionShardingRuntime runtime;
    private final CollectionShardingState state;
    private final DocumentStore store;
    private final WriteUnitOfWork units;
    private final MigratedSessionHistory sessionHistory;
    private final RangeDeletionStore tasks;
    private final RangeDeleter rangeDeleter;
    private final FailPoints failPoints;
    private final ShardMetrics metrics;
    private final MigrationProperties properties;
    /** The latest receipts, running or finished, for the commands that ask about one after its thread ended. */
    private final Map<UUID, RecipientMigration> recent = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, RecipientMigration> eldest) {
            return size() > RECENT;
        }
    };

    public MigrationDestinationManager(ActiveMigrationsRegistry registry, MigrationPeers peers, CollectionCatalog catalog,
            IndexCreator indexCreator, CollectionShardingRuntime runtime, CollectionShardingState state, DocumentStore store,
            WriteUnitOfWork units, MigratedSessionHistory sessionHistory, RangeDeletionStore tasks, RangeDeleter rangeDeleter,
            FailPoints failPoints, ShardMetrics metrics, MigrationProperties properties) {
        this.sessionHistory = sessionHistory;
        this.registry = registry;
        this.peers = peers;
        this.catalog = catalog;
        this.indexCreator = indexCreator;
        this.runtime = runtime;
        this.state = state;
        this.store = store;
        this.units = units;
        this.tasks = tasks;
        this.rangeDeleter = rangeDeleter;
        this.failPoints = failPoints;
        this.metrics = metrics;
        this.properties = properties;
    }

    /**
     * What {@code _recvChunkStart} carries.
     *
     * @param id         the migration id
     * @param namespace  the collection
     * @param range      the chunk
     * @param donor      the donor shard's name
     * @param shardKey   the collection's shard key
     * @param startAfter the donor's clone start: {@code _transferMods} begins after it
     */
    public record StartRequest(UUID id, Namespace namespace, ChunkRange range, String donor, ShardKeyPattern shardKey, BsonTimestamp startAfter) {}

    /**
     * {@code _recvChunkStart}: registers the receipt and starts it in the background; a repeated start of the running
     * receipt is a no-op.
     *
     * @throws CommandException ConflictingOperationInProgress (117) when this shard is in another migration
     */
    public void start(StartRequest request) {
        RecipientMigration receipt = new RecipientMigration(request);
        if (registry.registerReceipt(receipt)) {
            synchronized (recent) {
                recent.put(request.id(), receipt);
            }
            Thread.ofVirtual().name("recipient-" + request.id()).start(() -> run(receipt));
        }
    }

    /**
     * {@code _recvChunkStatus}: {@code {active, migrationId, state, documentsCloned, bytesCloned, modsApplied, errmsg?}};
     * {@code {active: false, state: "unknown"}} for a migration this process never received (it restarted).
     */
    public BsonDocument status(UUID id) {
        return find(id).map(RecipientMigration::describe)
                .orElseGet(() -> new BsonDocument("active", BsonBoolean.FALSE).append("migrationId", new BsonString(id.toString()))
                        .append("state", new BsonString("unknown")));
    }

    /**
     * {@code _recvChunkCommit}: asks the receipt to apply the last changes (the donor blocks writes now) and waits until it
     * did.
     *
     * @return the final {@link #status}
     * @throws CommandException OperationFailed (96) when the receipt failed, is unknown, or is not done within
     *                          {@code timeout}
     */
    public BsonDocument commit(UUID id, Duration timeout) {
        RecipientMigration receipt = find(id).orElseThrow(() -> new CommandException(ErrorCode.OperationFailed,
                "this shard is not receiving migration " + id + " (it restarted, or the migration ended)"));
        receipt.requestCommit();
        try {
            receipt.finished.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new CommandException(ErrorCode.OperationFailed, "migration " + id + " did not finish catching up within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException(ErrorCode.OperationFailed, "interrupted while committing migration " + id);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        }
        if (!receipt.state.equals(DONE)) {
            throw new CommandException(ErrorCode.OperationFailed, "receiving migration " + id + " failed: " + receipt.error);
        }
        return receipt.describe();
    }

    /**
     * {@code _recvChunkDecision}: the donor's recorded outcome. Aborted: the receipt (if it still runs) writes nothing more,
     * and this shard's range deletion task of the migration becomes ready. Committed: the task is deleted (the documents
     * are this shard's now). Idempotent; a task already gone is fine.
     */
    public void decide(UUID id, MigrationDecision decision) {
        if (decision == MigrationDecision.ABORTED) {
            find(id).ifPresent(RecipientMigration::fence);
            tasks.markReady(id, null);
            rangeDeleter.wake();
        } else {
            tasks.delete(id);
        }
    }

    private Optional<RecipientMigration> find(UUID id) {
        synchronized (recent) {
            return Optional.ofNullable(recent.get(id));
        }
    }

    private void run(RecipientMigration receipt) {
        StartRequest request = receipt.request;
        Namespace ns = request.namespace();
        long begin = System.nanoTime();
        long last = begin;
        BsonDocument changelog;
        try {
            state.markStale(ns.full());
            state.refresh(ns.full());
            CollectionInfo collection = prepareCollection(request);
            awaitOverlappingDeletions(request);
            tasks.insert(RangeDeletionTask.pending(request.id(), ns, collection.uuid(), request.shardKey(), request.range(),
                    RangeDeletionTask.Side.RECIPIENT, RangeDeletionTask.WhenToClean.NOW));
            last = phaseDone("prepare", last);

            receipt.state(CLONE);
            clone(receipt, collection);
            last = phaseDone("clone", last);

            receipt.state(CATCHUP);
            BsonTimestamp position = request.startAfter();
            while (true) {
                boolean committing = receipt.commitRequested;
                BsonDocument mods = peers.transferMods(request.donor(), request.id(), ns, position);
                List<BsonValue> entries = mods.getArray("entries").getValues();
                apply(receipt, collection, entries);
                position = mods.getTimestamp("resumeAfter");
                boolean more = mods.getBoolean("more").getValue();
                if (!entries.isEmpty() && !committing) {
                    failPoints.hit(DURING_CATCHUP);
                }
                if (committing && entries.isEmpty() && !more) {
                    break; // every change before the donor blocked writes is applied
                }
                if (!more) {
                    receipt.reachedSteady();
                    if (entries.isEmpty()) {
                        receipt.awaitCommitRequest(properties.statusPollInterval());
                    }
                }
            }
            last = phaseDone("catchup", last);
            migrateSessionHistory(receipt, collection);
            phaseDone("sessions", last);
            receipt.state(DONE);
            metrics.migrationPhase("recipient", "total", System.nanoTime() - begin);
            metrics.migrationFinished("recipient", "done");
            changelog = receipt.changelogDetails("success", begin);
        } catch (Exception e) {
            receipt.fail(e);
            metrics.migrationFinished("recipient", "failed");
            log.warn("receiving migration {} of {} {} failed: {}", request.id(), ns, request.range(), e.toString());
            changelog = receipt.changelogDetails("aborted: " + e.getMessage(), begin);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        } finally {
            registry.unregister(receipt); // first: the donor may start its next migration here as soon as this one answers
            receipt.finished.complete(null);
        }
        // after _recvChunkCommit answered: the config service's write is no part of the donor's critical section
        peers.logChange("moveChunk.to", ns, changelog);
    }

    /**
     * The clone phase: pulls the range's {@code _migrateClone} pages on this thread and writes each on a writer thread,
     * at most {@code clone-writers} at once, so the donor reads and sends a page while this shard writes the ones before
     * it, and the writes of two pages use two of PostgreSQL's backends (MongoDB's {@code chunkMigrationConcurrency} did
     * the same with inserter threads). Pages are disjoint, so their units of work may commit in any order. At most
     * {@code clone-writers + 1} pages are in memory. When a write fails the clone stops asking, waits for the writes
     * still running, and throws the first failure.
     */
    private void clone(RecipientMigration receipt, CollectionInfo collection) throws InterruptedException {
        StartRequest request = receipt.request;
        Deque<CompletableFuture<Void>> writing = new ArrayDeque<>();
        BsonDocument after = null;
        try {
            do {
                BsonDocument page = peers.migrateClone(request.donor(), request.id(), request.namespace(), after);
                after = page.isDocument("next") ? page.getDocument("next") : null;
                List<StoredDocument> documents = ClonePageBytes.decode(page.getBinary("documents").getData(), page.getInt32("count").getValue());
                while (writing.size() >= properties.cloneWriters() || (!writing.isEmpty() && writing.getFirst().isDone())) {
                    awaitWrite(writing.removeFirst()); // a write that failed stops the clone here
                }
                writing.add(CompletableFuture.runAsync(() -> {
                    write(receipt, collection, documents, List.of());
                    receipt.progress.cloned(documents.size(), documents.stream().mapToLong(StoredDocument::size).sum());
                    failPoints.hit(DURING_CLONE);
                }, CLONE_WRITERS));
            } while (after != null);
            while (!writing.isEmpty()) {
                awaitWrite(writing.removeFirst());
            }
        } finally {
            for (CompletableFuture<Void> running : writing) {
                try {
                    running.join(); // no write of this receipt may run on after the receipt has failed
                } catch (CompletionException ignored) {
                    // the first failure is the one thrown
                }
            }
        }
    }

    /** Waits for one page's write; its failure is rethrown as itself. */
    private static void awaitWrite(CompletableFuture<Void> write) throws InterruptedException {
        try {
            write.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : new IllegalStateException(e.getCause());
        }
    }

    /**
     * Pulls the range's retryable-write history from the donor ({@code _getNextSessionMods}) and writes it as this
     * shard's, once every change is applied and the donor blocks writes, so no later retryable write of the range is
     * missed; a statement resent after the commit, answered here, is recognised (mongo/src/mongo/db/s/README.md "Retryable writes").
     */
    private void migrateSessionHistory(RecipientMigration receipt, CollectionInfo collection) {
        StartRequest request = receipt.request;
        long after = 0;
        boolean more = true;
        while (more) {
            BsonDocument page = peers.nextSessionMods(request.donor(), request.id(), request.namespace(), after);
            List<BsonDocument> entries = page.getArray("entries").stream().map(BsonValue::asDocument).toList();
            if (!entries.isEmpty()) {
                receipt.unlessFenced(() -> runtime.shared(collection.namespace(), () -> units.writeFromMigrate(RECIPIENT, inUnit ->
                        sessionHistory.write(inUnit, collection.namespace().full(), collection.uuid(), entries))));
                after = entries.get(entries.size() - 1).getTimestamp("ts").getValue();
            }
            more = page.getBoolean("more").getValue();
        }
    }

    private long phaseDone(String phase, long since) {
        long now = System.nanoTime();
        metrics.migrationPhase("recipient", phase, now - since);
        return now;
    }

    /** The collection with the donor's options and indexes (creating what is missing), under the exclusive lock. */
    private CollectionInfo prepareCollection(StartRequest request) {
        Namespace ns = request.namespace();
        BsonDocument options = catalog.find(ns).isPresent() ? new BsonDocument() : peers.collectionOptions(request.donor(), ns);
        List<BsonDocument> specs = new ArrayList<>();
        for (BsonDocument spec : peers.indexSpecs(request.donor(), ns)) {
            if (!spec.getString("name").getValue().equals("_id_")) {
                specs.add(CreateIndexesCommand.validate(Collation.indexSpecToCopy(spec)));
            }
        }
        return runtime.exclusive(ns, () -> {
            CollectionInfo collection = catalog.create(RECIPIENT, ns, options).collection();
            indexCreator.createAll(RECIPIENT, collection, specs);
            return collection;
        });
    }

    /** Waits for this shard's own range deletion tasks overlapping the range (an earlier migration's orphans). */
    private void awaitOverlappingDeletions(StartRequest request) throws InterruptedException {
        KeyRange keys = KeyRange.of(request.shardKey(), request.range());
        long deadline = System.nanoTime() + properties.rangeDeleterWaitTimeout().toNanos();
        while (true) {
            List<RangeDeletionTask> overlapping = tasks.overlapping(request.namespace(), keys, request.id());
            if (overlapping.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new CommandException(ErrorCode.ChunkRangeCleanupPending, "the range " + request.range() + " of " + request.namespace()
                        + " still has " + overlapping.size() + " orphaned range(s) to delete on this shard after "
                        + properties.rangeDeleterWaitTimeout() + " (range deletion task " + overlapping.getFirst().id() + ")");
            }
            rangeDeleter.wake();
            Thread.sleep(100);
        }
    }

    /**
     * Applies a batch of the donor's oplog entries in time order; only each document's last state matters, so the batch
     * becomes one set of upserts and one of deletes.
     */
    private void apply(RecipientMigration receipt, CollectionInfo collection, List<BsonValue> entries) {
        if (entries.isEmpty()) {
            return;
        }
        ShardKeyPattern key = receipt.request.shardKey();
        KeyRange range = KeyRange.of(key, receipt.request.range());
        // a document whose post-image left the range is not the recipient's: deleted
        AppliedChanges changes = AppliedChanges.of(entries, document -> inRange(key, range, document));
        write(receipt, collection, changes.upserts(), changes.deletes());
        receipt.progress.transferred(entries.size());
    }

    private static boolean inRange(ShardKeyPattern key, KeyRange range, BsonDocument document) {
        byte[] shardKey;
        try {
            shardKey = key.keyOf(document);
        } catch (CommandException e) {
            return false; // an array on the shard key path: in no chunk
        }
        return range.contains(shardKey);
    }

    /**
     * Upserts {@code upserts} and deletes the documents with ids {@code deletes}, in one {@code fromMigrate} unit of work under
     * the collection lock (shared), unless the receipt was fenced by an abort decision. The upsert inserts every document
     * in one statement ({@code ON CONFLICT DO NOTHING}) and replaces only the ones whose {@code _id} it found taken, so a
     * clone page into an empty range costs one statement for the documents and their oplog entries and one per index;
     * re-applying a page (or a change the clone already saw) replaces documents instead of duplicating them. A unique
     * index conflict throws DuplicateKey and rolls the unit back: the receipt fails, and the migration with it.
     */
    private void write(RecipientMigration receipt, CollectionInfo collection, List<StoredDocument> upserts, List<byte[]> deletes) {
        if (upserts.isEmpty() && deletes.isEmpty()) {
            return;
        }
        receipt.unlessFenced(() -> runtime.shared(collection.namespace(), () -> units.writeFromMigrate(RECIPIENT, inUnit -> {
            store.upsertAndDelete(inUnit, collection, upserts, deletes);
            failPoints.hit(BATCH_WRITTEN);
            return null;
        })));
    }

    /** One receipt: its request, state and counters; the thread running it and the commands asking about it share it. */
    private final class RecipientMigration implements ActiveMigrationsRegistry.Receipt {
        final StartRequest request;
        final MigrationProgress progress;
        final CompletableFuture<Void> finished = new CompletableFuture<>();
        volatile String state = READY;
        volatile @Nullable String error;
        volatile boolean commitRequested;
        /** Writes hold its read lock, an abort decision its write lock: no write starts or runs on once {@link #fenced} is set. */
        private final ReadWriteLock writes = new ReentrantReadWriteLock();
        /** Set by an abort decision, holding {@link #writes}' write lock. */
        private boolean fenced;

        RecipientMigration(StartRequest request) {
            this.request = request;
            this.progress = new MigrationProgress(request.id(), MigrationProgress.Role.RECIPIENT, request.namespace(), request.range(),
                    request.donor(), peers.self(), READY);
        }

        @Override
        public MigrationProgress progress() {
            return progress;
        }

        void state(String next) {
            state = next;
            progress.phase(next);
        }

        synchronized void requestCommit() {
            commitRequested = true;
            if (!state.equals(DONE) && !state.equals(FAIL)) {
                state(COMMIT_START);
            }
            notifyAll();
        }

        /**
         * Waits at most {@code max} between two empty pulls, or until {@link #requestCommit}: the donor's writes are blocked
         * from then on, so the last catch-up starts at once rather than after the rest of a poll interval.
         */
        synchronized void awaitCommitRequest(Duration max) throws InterruptedException {
            if (!commitRequested) {
                wait(Math.max(1, max.toMillis()));
            }
        }

        synchronized void reachedSteady() {
            if (state.equals(CATCHUP)) {
                state(STEADY);
            }
        }

        /** Sets {@link #fenced} once the writes running now have ended. */
        void fence() {
            writes.writeLock().lock();
            try {
                fenced = true;
            } finally {
                writes.writeLock().unlock();
            }
        }

        /**
         * Runs {@code write} (one unit of work of this receipt) unless an abort decision came first; writes of a receipt
         * may run at once (the clone's writers).
         *
         * @throws CommandException OperationFailed (96) when the donor's abort decision fenced the receipt
         */
        void unlessFenced(Runnable write) {
            writes.readLock().lock();
            try {
                if (fenced) {
                    throw new CommandException(ErrorCode.OperationFailed, "migration " + request.id() + " was aborted by its donor");
                }
                write.run();
            } finally {
                writes.readLock().unlock();
            }
        }

        void fail(Exception e) {
            error = e.getMessage() == null ? e.toString() : e.getMessage();
            state(FAIL);
        }

        BsonDocument describe() {
            BsonDocument status = new BsonDocument("active", BsonBoolean.valueOf(registry.isRunning(request.id())))
                    .append("migrationId", new BsonString(request.id().toString()))
                    .append("state", new BsonString(state))
                    .append("documentsCloned", new BsonInt64(progress.documentsCloned()))
                    .append("bytesCloned", new BsonInt64(progress.bytesCloned()))
                    .append("modsApplied", new BsonInt64(progress.modsTransferred()));
            if (error != null) {
                status.append("errmsg", new BsonString(error));
            }
            return status;
        }

        BsonDocument changelogDetails(String note, long beginNanos) {
            return new BsonDocument("min", request.range().min()).append("max", request.range().max())
                    .append("from", new BsonString(request.donor())).append("to", new BsonString(peers.self()))
                    .append("migrationId", new BsonString(request.id().toString()))
                    .append("documentsCloned", new BsonInt64(progress.documentsCloned()))
                    .append("bytesCloned", new BsonInt64(progress.bytesCloned()))
                    .append("modsApplied", new BsonInt64(progress.modsTransferred()))
                    .append("totalMillis", new BsonInt64((System.nanoTime() - beginNanos) / 1_000_000))
                    .append("note", new BsonString(note));
        }
    }
}
