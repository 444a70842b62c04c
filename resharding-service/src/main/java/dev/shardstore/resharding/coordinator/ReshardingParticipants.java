package dev.shardstore.resharding.coordinator;

import java.util.List;
import org.bson.BsonTimestamp;

/**
 * What the coordinator asks of the config service and the shards at each of its states (MongoDB's coordinator talks
 * to its donor and recipient state machines through their state documents and {@code _flushReshardingStateChange}; here
 * through internal commands). Every call is idempotent: after a restart the coordinator repeats the call of the state it
 * had reached, so a participant that already did the step answers as it did.
 *
 * <p>The calls that wait (cloning, applying, the write block) pass {@link AbortCheck#check} while they wait, so that
 * abortReshardCollection stops them.
 */
public interface ReshardingParticipants {
    /**
     * Registers the operation with the config service (which refuses conflicting DDL and migrations of the collection
     * from now on and stops balancing it) and fixes the participants and the new chunks.
     *
     * @return the donors (the shards owning chunks of the collection) and the recipients (those the new chunks go to);
     *         or {@link Participants#NO_CHANGE} when the collection already has the key and no redistribution was asked
     * @throws dev.shardstore.contracts.error.CommandException e.g. NamespaceNotSharded (118), ConflictingOperationInProgress
     *                                                        (117) while another DDL operation runs on the collection
     */
    Participants initialize(ReshardingOperation operation);

    /**
     * Starts the donors: each fixes its {@code minFetchTimestamp}, after which every oplog entry of the collection names
     * its recipient under the new key.
     *
     * @return the highest {@code minFetchTimestamp}: the {@code cloneTimestamp}
     */
    BsonTimestamp prepareToDonate(ReshardingOperation operation, AbortCheck abort);

    /** Starts the recipients and waits until each has cloned every donor's documents as of {@code cloneTimestamp}. */
    void clone(ReshardingOperation operation, AbortCheck abort);

    /** Waits until the recipients' estimated time to apply the donors' remaining oplog entries is short enough to block writes. */
    void catchUp(ReshardingOperation operation, AbortCheck abort);

    /**
     * Blocks writes on the donors, waits until the recipients applied every entry, then verifies the new layout (per new
     * chunk, the count and hash of the documents on the donors against the recipient's temporary chunk).
     *
     * @throws dev.shardstore.contracts.error.CommandException on a verification mismatch (naming the range) or a block
     *                                                        longer than {@code reshardingCriticalSectionTimeoutMillis}
     */
    void blockWritesAndVerify(ReshardingOperation operation, AbortCheck abort);

    /** Carries out the decided commit: the catalog swap, the recipients' renames, the donors' drops, writes unblocked. */
    void commit(ReshardingOperation operation);

    /** Undoes the operation: temporary collections dropped, writes unblocked, the collection's registration removed. */
    void abort(ReshardingOperation operation);

    /**
     * The participants {@link #initialize} fixed, by shard name.
     *
     * @param noChange whether there is nothing to do (then both lists are empty, and otherwise neither)
     */
    record Participants(boolean noChange, List<String> donors, List<String> recipients) {
        /** Nothing to reshard: the collection already has the requested key. */
        public static final Participants NO_CHANGE = new Participants(true, List.of(), List.of());

        public Participants {
            donors = List.copyOf(donors);
            recipients = List.copyOf(recipients);
            if (noChange != (donors.isEmpty() && recipients.isEmpty()) || (!noChange && (donors.isEmpty() || recipients.isEmpty()))) {
                throw new IllegalArgumentException("a resharding needs at least one donor and one recipient, a no-change one none");
            }
        }

        /** Participants of a resharding with work to do. */
        public static Participants of(List<String> donors, List<String> recipients) {
            return new Participants(false, donors, recipients);
        }
    }

    /** Passed by the waiting calls while they wait. */
    @FunctionalInterface
    interface AbortCheck {
        /** @throws dev.shardstore.contracts.error.CommandException ReshardCollectionAborted (341) once an abort was requested */
        void check();
    }
}
