package dev.shardstore.shard.migration;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.versioning.CollectionFilteringInfo;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CollectionShardingState;
import java.time.Duration;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;
import dev.shardstore.shard.write.BucketCatalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The donor's decision steps of a migration (MongoDB's {@code MigrationCoordinator}; mongo/src/mongo/db/s/README.md "Orphaned range
 * deletion"), shared by the migration itself and its recovery after a restart:
 * <ul>
 *   <li>{@link #decideFromCatalog}: when the donor does not know whether the config service committed (it restarted, or
 *       the commit call got no answer), it fences the chunk ({@code _configsvrEnsureChunkVersionIsGreaterThan}: a commit
 *       still in flight is refused from then on) and reads the catalog: the chunk moved iff this shard no longer owns the
 *       range's lower bound;</li>
 *   <li>{@link #finish}: applies a recorded decision. Commit: the donor's critical section ends (its waiting writes get
 *       StaleConfig and go to the recipient), the recipient deletes its range deletion task, the donor's becomes ready.
 *       Abort: the section ends, the donor's task is deleted, the recipient's becomes ready (its partial copy is
 *       orphaned). Then the coordinator document is deleted. Every step is idempotent; a recipient that does not answer
 *       leaves the document for {@link MigrationRecovery} to retry.</li>
 * </ul>
 */
@Component
public class MigrationCoordinator {
    private static final Logger log = LoggerFactory.getLogger(MigrationCoordinator.class);

    private final MigrationCoordinatorStore coordinators;
    private final RangeDeletionStore tasks;
    private final CollectionShardingRuntime runtime;
    private final CollectionShardingState state;
    private final MigrationPeers peers;
    private final RangeDeleter rangeDeleter;
    private final BucketCatalog bucketCatalog;
    private final Duration retryInterval;

    public MigrationCoordinator(MigrationCoordinatorStore coordinators, RangeDeletionStore tasks, CollectionShardingRuntime runtime,
            CollectionShardingState state, MigrationPeers peers, RangeDeleter rangeDeleter, BucketCatalog bucketCatalog,
            MigrationProperties properties) {
        this.coordinators = coordinators;
        this.tasks = tasks;
        this.runtime = runtime;
        this.state = state;
        this.peers = peers;
        this.rangeDeleter = rangeDeleter;
        this.bucketCatalog = bucketCatalog;
        this.retryInterval = properties.recoveryRetryInterval();
    }

    /**
     * Decides an undecided migration from the catalog, after fencing its chunk; retries every
     * {@code recovery-retry-interval} until the config service answers (the donor keeps its critical section meanwhile).
     */
    MigrationDecision decideFromCatalog(MigrationCoordinatorDocument doc) {
        String ns = doc.namespace().full();
        while (true) {
            try {
                try {
                    peers.ensureChunkVersionIsGreaterThan(doc.namespace(), doc.range(), doc.preMigrationVersion());
                } catch (CommandException e) {
                    if (e.code() != ErrorCode.StaleEpoch) {
                        throw e;
                    }
                    state.markStale(ns);
                    if (!state.refresh(ns).sharded()) {
                        return MigrationDecision.ABORTED; // dropped: whatever moved was dropped with it
                    }
                    throw new CommandException(ErrorCode.ManualInterventionRequired, "the shard key of " + ns + " was refined while"
                            + " migration " + doc.id() + " was undecided; its outcome cannot be read from the catalog any more");
                }
                state.markStale(ns);
                CollectionFilteringInfo info = state.refresh(ns);
                boolean stillOwned = info.table().map(t -> t.owns(peers.self(), t.shardKey().encode(doc.range().min()))).orElse(true);
                MigrationDecision decision = stillOwned ? MigrationDecision.ABORTED : MigrationDecision.COMMITTED;
                log.info("migration {} of {} {} decided from the catalog: {}", doc.id(), ns, doc.range(), decision);
                return decision;
            } catch (CommandException e) {
                if (!MigrationPeers.unanswered(e)) {
                    throw e;
                }
                log.warn("cannot decide migration {} of {} yet ({}); retrying", doc.id(), ns, e.getMessage());
                sleep(retryInterval);
            }
        }
    }

    /**
     * Applies {@code decided}'s decision on both shards and deletes its coordinator document (see the class comment).
     *
     * @param donorCleanup how the donor's task is cleaned after a commit: {@code NOW} for {@code _waitForDelete}; null keeps
     *                     its {@code DELAYED}
     * @return the {@link System#nanoTime()} just after the donor's critical section was exited (the writes waiting on it
     *         resume), which happens first: the donor's report of the section's length ends there
     * @throws CommandException when the recipient did not answer (the document stays, decided, for a retry)
     */
    long finish(MigrationCoordinatorDocument decided, RangeDeletionTask.@Nullable WhenToClean donorCleanup) {
        if (decided.decision() == null) {
            throw new IllegalStateException("migration " + decided.id() + " is not decided");
        }
        Namespace ns = decided.namespace();
        boolean held = runtime.exitCriticalSection(ns, decided.criticalSectionReason());
        long exited = System.nanoTime();
        if (held) {
            refreshQuietly(ns);
        }
        if (decided.decision() == MigrationDecision.COMMITTED) {
            bucketCatalog.clear(ns); // a time-series collection's open buckets in the moved range are orphans now
            peers.recvChunkDecision(decided.recipient(), decided.id(), ns, MigrationDecision.COMMITTED);
            tasks.markReady(decided.id(), donorCleanup);
        } else {
            tasks.delete(decided.id());
            peers.recvChunkDecision(decided.recipient(), decided.id(), ns, MigrationDecision.ABORTED);
        }
        coordinators.delete(decided.id());
        rangeDeleter.wake();
        return exited;
    }

    /** The changelog details every migration entry carries: {@code {min, max, from, to, migrationId}}. */
    static BsonDocument details(MigrationCoordinatorDocument doc) {
        return new BsonDocument("min", doc.range().min()).append("max", doc.range().max())
                .append("from", new BsonString(doc.donor())).append("to", new BsonString(doc.recipient()))
                .append("migrationId", new BsonString(doc.id().toString()));
    }

    /** Reloads {@code ns}'s filtering metadata after the section, so the next command need not; a failure is left to it. */
    private void refreshQuietly(Namespace ns) {
        try {
            state.refresh(ns.full());
        } catch (CommandException e) {
            log.warn("could not refresh {} after its migration; the next versioned command will: {}", ns, e.getMessage());
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while deciding a migration", e);
        }
    }
}
