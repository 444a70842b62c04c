package dev.shardstore.shard.autosplit;

/**
 * How one auto-split task ended: the {@code outcome} tag of {@code shardstore.shard.autosplits}.
 */
public enum AutoSplitOutcome {
    /** The chunk was split and the split committed on the config service. */
    SPLIT("split"),
    /** The chunk is at least the maximum size but holds a single shard key value: marked jumbo, not split. */
    JUMBO("jumbo"),
    /** The chunk is still below the maximum chunk size (the writes were updates, or deletes made room): nothing to do. */
    TOO_SMALL("tooSmall"),
    /**
     * The chunk changed under the task (split, moved, migrating, collection dropped or resharded): abandoned quietly;
     * later writes schedule a new task against the new metadata.
     */
    STALE("stale"),
    /** Auto-split is off ({@code config.settings} {@code autosplit.enabled: false}). */
    DISABLED("disabled"),
    /** The task failed (the config service did not answer, a read failed): logged, tried again after more writes. */
    FAILED("failed");

    private final String tag;

    AutoSplitOutcome(String tag) {
        this.tag = tag;
    }

    /** The metric tag value. */
    public String tag() {
        return tag;
    }
}
