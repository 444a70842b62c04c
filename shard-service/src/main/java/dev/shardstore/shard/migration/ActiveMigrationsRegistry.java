package dev.shardstore.shard.migration;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CriticalSection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The migrations this shard takes part in (MongoDB's {@code ActiveMigrationsRegistry}; mongo/src/mongo/db/s/README.md "The live migration
 * protocol", step 1): at most one donation or one receipt at a time. A second request to move the same chunk to the same
 * shard joins the running donation and gets its result; any other migration request while one runs is
 * ConflictingOperationInProgress (117). Migrations are also refused while a migration of an earlier process life is
 * unfinished (its coordinator document still exists: recovery comes first), while a DDL participant blocks the namespace
 * ({@link #blockMigrations}), and while the namespace is in a critical section held for another operation (a drop).
 * Thread-safe.
 */
@Component
public class ActiveMigrationsRegistry {
    private final MigrationCoordinatorStore coordinators;
    private final CollectionShardingRuntime runtime;
    private final Set<Namespace> blocked = new HashSet<>();
    private @Nullable Donation donation;
    private @Nullable Receipt receipt;

    public ActiveMigrationsRegistry(MigrationCoordinatorStore coordinators, CollectionShardingRuntime runtime) {
        this.coordinators = coordinators;
        this.runtime = runtime;
    }

    /** A donation in progress: its request, its live state and the result every joined request gets. */
    static final class Donation {
        final MoveRangeRequest request;
        final MigrationProgress progress;
        final CompletableFuture<BsonDocument> result = new CompletableFuture<>();
        /** What {@code _migrateClone} and {@code _transferMods} read; set once the donor is ready to be cloned. */
        volatile @Nullable DonorSession session;
        /**
         * What the recipient reported it applied: the {@code after} of its latest {@code _transferMods}; null before its
         * first. The donor's steady-state check counts the range's oplog entries after it.
         */
        volatile @Nullable BsonTimestamp modsAppliedThrough;

        Donation(MoveRangeRequest request, UUID id) {
            this.request = request;
            this.progress = new MigrationProgress(id, MigrationProgress.Role.DONOR, request.namespace(), request.range(),
                    request.fromShard(), request.toShard(), "start");
        }
    }

    /** A receipt in progress (its state lives in {@link RecipientMigration}). */
    interface Receipt {
        MigrationProgress progress();
    }

    /**
     * What {@link #registerDonation} decided.
     *
     * @param donation the donation this request runs or joined
     * @param joined   true when another request started it: wait for {@link Donation#result}
     */
    record Registration(Donation donation, boolean joined) {}

    /**
     * Registers a donation for {@code request}, or joins the running one when it moves the same chunk to the same shard.
     *
     * @throws CommandException ConflictingOperationInProgress (117) naming what runs, or why migrations of the namespace
     *                          are refused now
     */
    synchronized Registration registerDonation(MoveRangeRequest request) {
        if (donation != null && donation.request.sameMove(request)) {
            return new Registration(donation, true);
        }
        requireIdle(request.namespace());
        donation = new Donation(request, UUID.randomUUID());
        return new Registration(donation, false);
    }

    /**
     * Registers a receipt; registering the running receipt again is a no-op.
     *
     * @return false when {@code incoming} is already the running receipt
     * @throws CommandException ConflictingOperationInProgress (117) as {@link #registerDonation}
     */
    synchronized boolean registerReceipt(Receipt incoming) {
        if (receipt != null && receipt.progress().id().equals(incoming.progress().id())) {
            return false;
        }
        requireIdle(incoming.progress().namespace());
        receipt = incoming;
        return true;
    }

    /** Ends {@code finished}'s registration (whatever its outcome). */
    synchronized void unregister(Donation finished) {
        if (donation == finished) {
            donation = null;
            notifyAll();
        }
    }

    /** Ends {@code finished}'s registration (whatever its outcome). */
    synchronized void unregister(Receipt finished) {
        if (receipt == finished) {
            receipt = null;
            notifyAll();
        }
    }

    /** The running donation with id {@code id}. */
    synchronized Optional<Donation> donation(UUID id) {
        return donation != null && donation.progress.id().equals(id) ? Optional.of(donation) : Optional.empty();
    }

    /** Whether migration {@code id} runs in this process (as donor or recipient). */
    synchronized boolean isRunning(UUID id) {
        return donation != null && donation.progress.id().equals(id) || receipt != null && receipt.progress().id().equals(id);
    }

    /** The running migrations' live states (for currentOp and the actuator). */
    public synchronized List<MigrationProgress> active() {
        List<MigrationProgress> all = new ArrayList<>(2);
        if (donation != null) {
            all.add(donation.progress);
        }
        if (receipt != null) {
            all.add(receipt.progress());
        }
        return all;
    }

    /**
     * For a DDL participant ({@code _shardsvrParticipantBlock}): refuses new migrations of {@code namespace}, waits until
     * none of it runs or is unfinished on this shard, then runs {@code action} (entering the DDL's critical section, which
     * keeps refusing them afterwards) and lifts the block.
     *
     * @throws CommandException ConflictingOperationInProgress (117) when a migration of the namespace is still running
     *                          after {@code timeout} (the DDL coordinator retries)
     */
    public <T> T blockMigrations(Namespace namespace, Duration timeout, Supplier<T> action) {
        synchronized (this) {
            blocked.add(namespace);
        }
        try {
            long deadline = System.nanoTime() + timeout.toNanos();
            synchronized (this) {
                while (busy(namespace)) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new CommandException(ErrorCode.ConflictingOperationInProgress, "a chunk migration of " + namespace
                                + " is running on this shard; the DDL operation waits for it to finish");
                    }
                    try {
                        wait(Math.min(100, Math.max(1, left / 1_000_000)));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new CommandException(ErrorCode.ConflictingOperationInProgress, "interrupted while waiting for a migration of " + namespace);
                    }
                }
            }
            return action.get();
        } finally {
            synchronized (this) {
                blocked.remove(namespace);
            }
        }
    }

    private boolean busy(Namespace namespace) {
        return donation != null && donation.request.namespace().equals(namespace)
                || receipt != null && receipt.progress().namespace().equals(namespace)
                || coordinators.list().stream().anyMatch(d -> d.namespace().equals(namespace));
    }

    private void requireIdle(Namespace namespace) {
        MigrationProgress running = donation != null ? donation.progress : receipt != null ? receipt.progress() : null;
        if (running != null) {
            throw new CommandException(ErrorCode.ConflictingOperationInProgress, "this shard is already in a migration: "
                    + running.role().desc() + " of " + running.range() + " of " + running.namespace() + " (" + running.donor() + " -> "
                    + running.recipient() + ", migration " + running.id() + ")");
        }
        List<MigrationCoordinatorDocument> unfinished = coordinators.list();
        if (!unfinished.isEmpty()) {
            MigrationCoordinatorDocument first = unfinished.getFirst();
            throw new CommandException(ErrorCode.ConflictingOperationInProgress, "migration " + first.id() + " of " + first.namespace()
                    + " is not finished yet (its recovery is retried every few seconds); no new migration starts before");
        }
        if (blocked.contains(namespace)) {
            throw new CommandException(ErrorCode.ConflictingOperationInProgress, "a DDL operation of " + namespace + " blocks migrations");
        }
        Optional<CriticalSection> section = runtime.criticalSection(namespace);
        if (section.isPresent() && !MigrationCoordinatorDocument.isMigrationReason(section.get().reason())) {
            throw new CommandException(ErrorCode.ConflictingOperationInProgress, namespace + " is in a critical section for "
                    + section.get().reason().toJson() + "; migrations wait until it is over");
        }
    }
}
