package dev.shardstore.shard.migration;

/**
 * The outcome of a migration as its coordinator document records it (MongoDB's {@code decision}); the config service's
 * commit is the point of no return.
 */
public enum MigrationDecision {
    /** The catalog moved the chunk: the donor's copy is orphaned, the recipient keeps its documents. */
    COMMITTED("committed"),
    /** The chunk stays on the donor: the recipient's copy is orphaned. */
    ABORTED("aborted");

    private final String value;

    MigrationDecision(String value) {
        this.value = value;
    }

    /** The stored and wire spelling ({@code committed} / {@code aborted}). */
    public String value() {
        return value;
    }

    /**
     * The decision spelled {@code value}.
     *
     * @throws IllegalArgumentException for another spelling
     */
    public static MigrationDecision of(String value) {
        for (MigrationDecision d : values()) {
            if (d.value.equals(value)) {
                return d;
            }
        }
        throw new IllegalArgumentException("a migration decision is \"committed\" or \"aborted\", not \"" + value + "\"");
    }
}
