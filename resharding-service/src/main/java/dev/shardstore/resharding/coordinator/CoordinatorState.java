package dev.shardstore.resharding.coordinator;

import java.util.Arrays;

/**
 * The resharding coordinator's states, in order, spelled as MongoDB stores them in {@code config.reshardingOperations}
 * ({@code CoordinatorStateEnum}; docs/architecture.md "Resharding"). The commit decision is the persisted step into
 * {@link #COMMITTING}: before it an operation may still abort (into {@link #ABORTING}), after it it only goes forward.
 */
public enum CoordinatorState {
    /** The document exists; the participants and the new chunks are being fixed, the collection registered. */
    INITIALIZING("initializing"),
    /** The donors are asked for their {@code minFetchTimestamp}; the highest becomes {@code cloneTimestamp}. */
    PREPARING_TO_DONATE("preparing-to-donate"),
    /** The recipients clone every donor's documents as of {@code cloneTimestamp} into the temporary collection. */
    CLONING("cloning"),
    /** The recipients apply the donors' oplog entries after {@code cloneTimestamp} until they are nearly caught up. */
    APPLYING("applying"),
    /** The donors block writes; the recipients apply the last entries; the new layout is verified. */
    BLOCKING_WRITES("blocking-writes"),
    /** Decided: the catalog swaps to the new collection, the recipients rename, the donors drop the old data. */
    COMMITTING("committing"),
    /** Over (committed or aborted); the document stays so that a retried identical command gets the outcome. */
    QUIESCED("quiesced"),
    /** Forgotten: the document no longer holds the collection (another resharding of it may start). */
    DONE("done"),
    /** Undoing, before any decision: temporary collections dropped, writes unblocked, the catalog as it was. */
    ABORTING("aborting");

    private final String value;

    CoordinatorState(String value) {
        this.value = value;
    }

    /** The stored spelling ({@code "preparing-to-donate"}). */
    public String value() {
        return value;
    }

    /**
     * The state stored as {@code value}.
     *
     * @throws IllegalArgumentException for any other spelling
     */
    public static CoordinatorState of(String value) {
        return Arrays.stream(values()).filter(s -> s.value.equals(value)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no resharding coordinator state '" + value + "'"));
    }

    /** Whether an abort may still undo the operation: every state before the commit decision. */
    public boolean beforeDecision() {
        return ordinal() < COMMITTING.ordinal();
    }

    /** Whether the operation reached its end (quiesced or done); its outcome is in the document. */
    public boolean finished() {
        return this == QUIESCED || this == DONE;
    }

    /**
     * The state after this one: the next on the way to a commit; {@link #QUIESCED} after committing or aborting;
     * {@link #DONE} after quiesced.
     *
     * @throws IllegalStateException from {@link #DONE}
     */
    public CoordinatorState next() {
        return switch (this) {
            case INITIALIZING -> PREPARING_TO_DONATE;
            case PREPARING_TO_DONATE -> CLONING;
            case CLONING -> APPLYING;
            case APPLYING -> BLOCKING_WRITES;
            case BLOCKING_WRITES -> COMMITTING;
            case COMMITTING, ABORTING -> QUIESCED;
            case QUIESCED -> DONE;
            case DONE -> throw new IllegalStateException("a done resharding operation has no next state");
        };
    }
}
