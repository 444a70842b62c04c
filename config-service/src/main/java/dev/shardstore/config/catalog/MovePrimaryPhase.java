package dev.shardstore.config.catalog;

/**
 * The phases of a movePrimary coordinator, in order (MongoDB's {@code MovePrimaryCoordinator}; docs/sharding-protocol.md,
 * "Moving a database's primary shard"). The persisted phase is the next one to run; every phase is idempotent, so a
 * coordinator resumed after a crash re-runs the phase it was in.
 */
public enum MovePrimaryPhase {
    /**
     * (1) The old primary enters the database's critical section blocking writes; then the unsharded collections to
     * move are listed (after the section, so that none can appear afterwards) and recorded.
     */
    BLOCK_WRITES,
    /** (2) The new primary clones the recorded collections (options, indexes, documents) from the old one. */
    CLONE,
    /**
     * (3) The old primary blocks reads too; the catalog commits the new primary with {@code lastMod + 1} and its
     * {@code DATABASE_VERSION_CHANGED} event.
     */
    COMMIT,
    /** (4) The old primary exits the section and reloads the database version: its waiters get StaleDbVersion. */
    RELEASE,
    /** (5) The old copies are dropped from the old primary; then (6) the coordinator document is deleted. */
    DROP_OLD
}
