package dev.shardstore.config.catalog;

/**
 * The phases of a dropCollection coordinator, in order (MongoDB's {@code DropCollectionCoordinator}; docs/sharding-protocol.md,
 * "Dropping a sharded collection"). The persisted phase is the next one to run; every phase is idempotent, so a
 * coordinator resumed after a crash re-runs the phase it was in.
 */
public enum DropCollectionPhase {
    /** (a) Every shard enters the collection's critical section, blocking versioned reads and writes. */
    BLOCK,
    /** (b) The collection and its chunks leave the catalog, with their {@code ROUTING_CHANGED} event. */
    COMMIT,
    /** (c) Every shard drops the collection's data (unversioned, so the section does not block it). */
    DROP_DATA,
    /** (d) Every shard exits the section and refreshes; then (e) the coordinator document is deleted. */
    RELEASE
}
