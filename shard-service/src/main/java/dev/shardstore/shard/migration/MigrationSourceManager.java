package dev.shardstore.shard.migration;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.KeyRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.IndexWalk;
import dev.shardstore.shard.storage.OplogReader;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CollectionShardingState;
import dev.shardstore.shard.versioning.CriticalSectionPhase;
import dev.shardstore.support.failpoint.FailPoints;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The donor of a chunk migration (MongoDB's {@code MigrationSourceManager}; mongo/src/mongo/db/s/README.md "The live migration protocol";
 * docs/sharding-protocol.md, "Chunk migration"). {@code _shardsvrMoveRange} runs {@link #moveRange}, which answers once
 * the migration committed or aborted:
 * <ol>
 *   <li>registers the donation ({@link ActiveMigrationsRegistry}: a second request for the same move joins it);</li>
 *   <li>reloads its filtering metadata and checks that the range is exactly a chunk of this shard at the version the
 *       config service saw, and (unless {@code forceJumbo}) that it is not too big to move;</li>
 *   <li>persists the migration coordinator document and a pending range deletion task for its own copy, in one
 *       transaction; pins the oplog at the all-durable point, which is where the clone starts;</li>
 *   <li>{@code _recvChunkStart} to the recipient, then polls {@code _recvChunkStatus} until it is {@code steady}
 *       (it cloned and caught up) and few changes are left for it to pull ({@link #fewModsLeft}, MongoDB's check
 *       before it blocks writes); fail point {@link #HANG_AFTER_CLONE} after that;</li>
 *   <li>enters the critical section's catch-up phase (writes wait; the ones in flight are drained, and prepared
 *       transactions' decisions awaited: their entries appear only then), sends
 *       {@code _recvChunkCommit} (the recipient applies the last changes, every one of them since writes are blocked),
 *       enters the commit phase (reads wait too; {@link #IN_CRITICAL_SECTION}), and commits with
 *       {@code _configsvrCommitChunkMigration}. A commit without an answer is decided from the catalog after a fence
 *       ({@link MigrationCoordinator#decideFromCatalog}): the commit is the point of no return;</li>
 *   <li>records the decision ({@link #AFTER_CONFIG_COMMIT} sits just before), then {@link MigrationCoordinator#finish}:
 *       exits the section (the waiting writes get StaleConfig and their router retries them on the recipient), and
 *       applies the decision to both range deletion tasks.</li>
 * </ol>
 * Any failure before the decision aborts: the recipient's copy becomes an orphaned range its range deleter removes. A
 * donor killed at any step finishes the same way when it restarts ({@link MigrationRecovery}). The reply is
 * {@code {migrationId, documentsCloned, bytesCloned, modsTransferred, criticalSectionMillis, ok: 1}}; the changelog gets
 * {@code moveChunk.start}, {@code moveChunk.commit} or {@code moveChunk.error}, and {@code moveChunk.from} with the step
 * timings.
 */
@Component
public class MigrationSourceManager {
    /**
     * How long the donor's critical section waits for the writes in flight to end, prepared transactions' decisions
     * included, before the recipient's last catch-up; past it the migration aborts.
     */
    static final Duration PREPARED_DECISION_WAIT = Duration.ofSeconds(30);
    /** The context of this component's own writes: no deadline, no session. */
    private static final OperationContext DONOR = OperationContext.internal("migrationDonor");
    /** Fail point at each {@code steady} report of the recipient, before the donor looks how many changes are left. */
    public static final String BEFORE_STEADY_CHECK = "moveChunk.beforeSteadyCheck";
    /** Fail point after the recipient reported {@code steady}, before the critical section. */
    public static final String HANG_AFTER_CLONE = "moveChunk.hangAfterClone";
    /** Fail point inside the critical section's commit phase, before the config commit. */
    public static final String IN_CRITICAL_SECTION = "moveChunk.inCriticalSection";
    /** Fail point after the config service committed, before the donor records the decision. */
    public static final String AFTER_CONFIG_COMMIT = "moveChunk.afterConfigCommit";
    /**
     * MongoDB's {@code maxCatchUpPercentageBeforeBlockingWrites} (10): the donor blocks writes only once the changes left
     * for the recipient to pull are estimated at less than this percentage of the chunk size.
     */
    static final int MAX_CATCH_UP_PERCENTAGE_BEFORE_BLOCKING_WRITES = 10;
    /** How long the recipient may not answer {@code _recvChunkStatus} before the donor aborts. */
    static final Duration RECIPIENT_UNREACHABLE_LIMIT = Duration.ofSeconds(10);
    private static final Logger log = LoggerFactory.getLogger(MigrationSourceManager.class);

    private final ActiveMigrationsRegistry registry;
    private final MigrationCoordinatorStore coordinators;
    private final RangeDeletionStore tasks;
    private final MigrationCoordinator coordinator;
    private final CollectionShardingState state;
    private final CollectionShardingRuntime runtime;
    private final CollectionCatalog catalog;
    private final ChunkRangeReader reader;
    private final IndexWalk walk;
    private final OplogReader oplog;
    private final MigrationPeers peers;
    private final RangeDeleter rangeDeleter;
    private final FailPoints failPoints;
    private final ShardMetrics metrics;
    private final MigrationProperties properties;
    private final TransactionTemplate tx;

    public MigrationSourceManager(ActiveMigrationsRegistry registry, MigrationCoordinatorStore coordinators, RangeDeletionStore tasks,
            MigrationCoordinator coordinator, CollectionShardingState state, CollectionShardingRuntime runtime, CollectionCatalog catalog,
            ChunkRangeReader reader, IndexWalk walk, OplogReader oplog, MigrationPeers peers, RangeDeleter rangeDeleter,
            FailPoints failPoints, ShardMetrics metrics, MigrationProperties properties, PlatformTransactionManager transactions) {
        this.registry = registry;
        this.coordinators = coordinators;
        this.tasks = tasks;
        this.coordinator = coordinator;
        this.state = state;
        this.runtime = runtime;
        this.catalog = catalog;
        this.reader = reader;
        this.walk = walk;
        this.oplog = oplog;
        this.peers = peers;
        this.rangeDeleter = rangeDeleter;
        this.failPoints = failPoints;
        this.metrics = metrics;
        this.properties = properties;
        this.tx = new TransactionTemplate(transactions);
    }

    /**
     * Runs (or joins) the migration {@code request} asks for and answers once it is over (see the class comment).
     *
     * @throws CommandException ConflictingOperationInProgress (117) when this shard migrates something else, or the chunk
     *                          changed since the config service resolved it; NamespaceNotSharded (118); ChunkTooBig (153);
     *                          BadValue when {@code fromShard} is not this shard; the cause of an abort (its code, with a
     *                          message saying the migration aborted)
     */
    public BsonDocument moveRange(MoveRangeRequest request) {
        ActiveMigrationsRegistry.Registration registration = registry.registerDonation(request);
        ActiveMigrationsRegistry.Donation donation = registration.donation();
        if (registration.joined()) {
            return join(donation.result);
        }
        try {
            BsonDocument reply = donate(donation);
            donation.result.complete(reply);
            return reply;
        } catch (RuntimeException e) {
            donation.result.completeExceptionally(e);
            throw e;
        } finally {
            DonorSession session = donation.session;
            if (session != null) {
                session.pin().close();
            }
            registry.unregister(donation);
        }
    }

    private BsonDocument donate(ActiveMigrationsRegistry.Donation donation) {
        MoveRangeRequest request = donation.request;
        Namespace ns = request.namespace();
        UUID id = donation.progress.id();
        Steps steps = new Steps();
        if (!request.fromShard().equals(peers.self())) {
            throw new CommandException(ErrorCode.BadValue, "'fromShard' " + request.fromShard() + " is not this shard (" + peers.self() + ")");
        }
        state.markStale(ns.full());
        RoutingTable table = state.refresh(ns.full()).table().orElseThrow(() -> new CommandException(ErrorCode.NamespaceNotSharded,
                "collection " + ns + " is not sharded"));
        ShardKeyPattern key = table.shardKey();
        Chunk chunk = table.findChunk(key.encode(request.range().min()));
        if (!Arrays.equals(key.encode(chunk.range().min()), key.encode(request.range().min()))
                || !Arrays.equals(key.encode(chunk.range().max()), key.encode(request.range().max()))
                || !chunk.shard().equals(peers.self()) || !chunk.lastmod().equals(request.chunkVersion())) {
            throw new CommandException(ErrorCode.ConflictingOperationInProgress, "the chunk " + request.range() + " of " + ns
                    + " changed since the migration was requested (this shard sees " + chunk + "); retry the move");
        }
        CollectionInfo collection = runtime.shared(ns, () -> catalog.create(DONOR, ns, new BsonDocument()).collection());
        IndexWalk.Source index = reader.index(collection, key);
        KeyRange keys = KeyRange.of(key, request.range());
        if (!request.forceJumbo()) {
            requireMovable(collection, index, keys, request);
        }
        MigrationCoordinatorDocument doc = new MigrationCoordinatorDocument(id, ns, collection.uuid(), request.range(), peers.self(),
                request.toShard(), table.collectionVersion(), null);
        tx.executeWithoutResult(status -> {
            coordinators.insert(doc);
            tasks.insert(RangeDeletionTask.pending(id, ns, collection.uuid(), key, request.range(), RangeDeletionTask.Side.DONOR,
                    RangeDeletionTask.WhenToClean.DELAYED));
        });
        peers.logChange("moveChunk.start", ns, MigrationCoordinator.details(doc));

        MigrationDecision decision;
        RuntimeException failure = null;
        long sectionStart = 0;
        try {
            BsonTimestamp start = oplog.allDurable();
            donation.session = new DonorSession(collection, key, keys, index, oplog.pin(start), start);
            steps.end("start");
            donation.progress.phase("clone");
            peers.recvChunkStart(request.toShard(), id, ns, request.range(), key.pattern(), start);
            awaitSteady(donation);
            steps.end("clone");
            failPoints.hit(HANG_AFTER_CLONE);
            donation.progress.phase("criticalSection");
            sectionStart = System.nanoTime();
            runtime.enterCriticalSection(ns, CriticalSectionPhase.CATCH_UP, doc.criticalSectionReason(), null);
            // a prepared transaction's entries appear when its coordinator decides: wait for that before the last catch-up
            oplog.awaitEveryReservation(PREPARED_DECISION_WAIT);
            peers.recvChunkCommit(request.toShard(), id, ns);
            runtime.enterCriticalSection(ns, CriticalSectionPhase.COMMIT, doc.criticalSectionReason(), null);
            failPoints.hit(IN_CRITICAL_SECTION);
            steps.end("criticalSection");
            donation.progress.phase("commit");
            decision = commitOnConfig(doc, chunk);
            if (decision == MigrationDecision.ABORTED) {
                failure = new CommandException(ErrorCode.OperationFailed, "the config service did not answer the commit, and the"
                        + " catalog says the chunk did not move");
            }
        } catch (RuntimeException e) {
            decision = MigrationDecision.ABORTED;
            failure = e;
        }
        if (decision == MigrationDecision.COMMITTED) {
            failPoints.hit(AFTER_CONFIG_COMMIT);
        }
        MigrationCoordinatorDocument decided = coordinators.decide(id, decision);
        steps.end("commit");
        donation.progress.phase("cleanup");
        long sectionEnd;
        try {
            sectionEnd = coordinator.finish(decided, request.waitForDelete() ? RangeDeletionTask.WhenToClean.NOW : null);
        } catch (CommandException e) {
            sectionEnd = System.nanoTime(); // finish exits the section first: what failed is the recipient's call after it
            log.warn("migration {} of {} is {}, but the recipient did not take the decision yet; it is retried: {}", id, ns,
                    decision.value(), e.getMessage());
        }
        // from blocking writes to letting them resume: the recipient's last catch-up, the config commit, the decision
        long sectionMillis = sectionStart == 0 ? 0 : (sectionEnd - sectionStart) / 1_000_000;
        steps.end("cleanup");
        BsonDocument details = MigrationCoordinator.details(doc);
        BsonDocument counts = new BsonDocument("migrationId", new BsonString(id.toString()))
                .append("documentsCloned", new BsonInt64(donation.progress.documentsCloned()))
                .append("bytesCloned", new BsonInt64(donation.progress.bytesCloned()))
                .append("modsTransferred", new BsonInt64(donation.progress.modsTransferred()))
                .append("criticalSectionMillis", new BsonInt64(sectionMillis));
        BsonDocument from = details.clone();
        from.putAll(counts);
        from.append("steps", steps.millis()).append("note", new BsonString(failure == null ? "success" : "aborted"));
        metrics.migrationFinished("donor", decision.value());
        steps.record(metrics);
        if (failure != null) {
            peers.logChange("moveChunk.error", ns, details.clone().append("errmsg", new BsonString(String.valueOf(failure.getMessage()))));
            peers.logChange("moveChunk.from", ns, from);
            throw aborted(request, failure);
        }
        peers.logChange("moveChunk.commit", ns, details);
        peers.logChange("moveChunk.from", ns, from);
        if (request.waitForDelete()) {
            rangeDeleter.awaitDeleted(id, Duration.ofDays(1));
        }
        return counts;
    }

    /** Commits on the config service; an unanswered commit is decided from the catalog. A refusal throws. */
    private MigrationDecision commitOnConfig(MigrationCoordinatorDocument doc, Chunk chunk) {
        try {
            peers.commitChunkMigration(doc.namespace(), doc.preMigrationVersion(), doc.range(), chunk.lastmod(), doc.recipient());
            return MigrationDecision.COMMITTED;
        } catch (CommandException e) {
            if (!MigrationPeers.unanswered(e)) {
                throw e;
            }
            log.warn("the commit of migration {} of {} got no answer ({}); deciding from the catalog", doc.id(), doc.namespace(), e.getMessage());
            return coordinator.decideFromCatalog(doc);
        }
    }

    /**
     * Polls the recipient until it is steady and {@link #fewModsLeft}; throws when it failed, forgot the migration or stays
     * unreachable.
     */
    private void awaitSteady(ActiveMigrationsRegistry.Donation donation) {
        MoveRangeRequest request = donation.request;
        UUID id = donation.progress.id();
        long unreachableSince = 0;
        while (true) {
            BsonDocument status;
            try {
                status = peers.recvChunkStatus(request.toShard(), id, request.namespace());
                unreachableSince = 0;
            } catch (CommandException e) {
                if (!MigrationPeers.unanswered(e)) {
                    throw e;
                }
                long now = System.nanoTime();
                unreachableSince = unreachableSince == 0 ? now : unreachableSince;
                if (now - unreachableSince > RECIPIENT_UNREACHABLE_LIMIT.toNanos()) {
                    throw new CommandException(ErrorCode.OperationFailed, "recipient " + request.toShard() + " did not answer for "
                            + RECIPIENT_UNREACHABLE_LIMIT.toSeconds() + " s: " + e.getMessage(), e);
                }
                sleep(properties.statusPollInterval());
                continue;
            }
            String recipientState = status.getString("state", new BsonString("unknown")).getValue();
            if (recipientState.equals(MigrationDestinationManager.STEADY)) {
                failPoints.hit(BEFORE_STEADY_CHECK);
                if (fewModsLeft(donation)) {
                    return;
                }
            }
            if (!status.getBoolean("active", org.bson.BsonBoolean.FALSE).getValue()) {
                throw new CommandException(ErrorCode.OperationFailed, "recipient " + request.toShard() + " is not receiving migration "
                        + id + " any more (state " + recipientState + (status.isString("errmsg") ? ": " + status.getString("errmsg").getValue() : "")
                        + ")");
            }
            sleep(properties.statusPollInterval());
        }
    }

    /**
     * MongoDB's steady-state check before the critical section ({@code MigrationChunkClonerSource}'s
     * {@code maxCatchUpPercentageBeforeBlockingWrites}): the range's client changes after what the recipient last reported
     * applied fit in one {@code _transferMods} batch, and at the average size of the documents cloned they are less than
     * {@link #MAX_CATCH_UP_PERCENTAGE_BEFORE_BLOCKING_WRITES} percent of the chunk size. Writes are then blocked for one
     * short pull rather than for as long as the recipient takes to catch up with a burst of writes.
     */
    private boolean fewModsLeft(ActiveMigrationsRegistry.Donation donation) {
        DonorSession session = donation.session;
        BsonTimestamp applied = donation.modsAppliedThrough;
        if (session == null || applied == null) {
            return false; // the recipient has not pulled any change yet
        }
        int changes = oplog.countClientChanges(session.collection().uuid(), applied, session.range(), MigrationChunkClonerSource.MODS_BATCH_ENTRIES);
        if (changes == MigrationChunkClonerSource.MODS_BATCH_ENTRIES) {
            return false;
        }
        MigrationProgress progress = donation.progress;
        long averageObjectSize = progress.documentsCloned() == 0 ? 1 : Math.max(1, progress.bytesCloned() / progress.documentsCloned());
        long estimatedBytes = changes * averageObjectSize;
        return estimatedBytes * 100 < MAX_CATCH_UP_PERCENTAGE_BEFORE_BLOCKING_WRITES * donation.request.maxChunkSizeBytes();
    }

    /** MongoDB's jumbo check: more than 1.3 times the documents of a full chunk at the collection's average size. */
    private void requireMovable(CollectionInfo collection, IndexWalk.Source index, KeyRange keys, MoveRangeRequest request) {
        long average = walk.dataSize(collection).averageObjectSize();
        if (average == 0) {
            return;
        }
        long count = runtime.shared(request.namespace(), () -> walk.count(index, keys.min(), keys.max()));
        long maxDocuments = Math.max(1, request.maxChunkSizeBytes() / average) * 13 / 10;
        if (count > maxDocuments) {
            throw new CommandException(ErrorCode.ChunkTooBig, "chunk " + request.range() + " of " + request.namespace() + " holds "
                    + count + " documents of about " + average + " bytes, more than " + maxDocuments + " (1.3 times a chunk of "
                    + request.maxChunkSizeBytes() + " bytes); split it, or move it with forceJumbo: true");
        }
    }

    private static CommandException aborted(MoveRangeRequest request, RuntimeException cause) {
        ErrorCode code = cause instanceof CommandException e ? e.code() : ErrorCode.OperationFailed;
        return new CommandException(code, "migration of " + request.range() + " of " + request.namespace() + " to " + request.toShard()
                + " aborted: " + cause.getMessage(), cause);
    }

    private static BsonDocument join(CompletableFuture<BsonDocument> running) {
        try {
            return running.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException(ErrorCode.OperationFailed, "interrupted");
        }
    }

    /** The durations of a migration's steps on the donor, for the changelog and the phase timers. */
    private static final class Steps {
        private final BsonDocument millis = new BsonDocument();
        private final java.util.Map<String, Long> nanos = new java.util.LinkedHashMap<>();
        private final long start = System.nanoTime();
        private long last = start;

        void end(String step) {
            long now = System.nanoTime();
            nanos.put(step, now - last);
            millis.append(step, new BsonInt64((now - last) / 1_000_000));
            last = now;
        }

        BsonDocument millis() {
            return millis.clone().append("total", new BsonInt64((last - start) / 1_000_000));
        }

        void record(ShardMetrics metrics) {
            nanos.forEach((step, n) -> metrics.migrationPhase("donor", step, n));
            metrics.migrationPhase("donor", "total", last - start);
        }
    }
}
