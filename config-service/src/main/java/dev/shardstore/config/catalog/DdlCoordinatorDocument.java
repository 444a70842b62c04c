package dev.shardstore.config.catalog;

import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * A persisted DDL coordinator's document (a row of {@code sharding_ddl_coordinators}, MongoDB's
 * {@code config.system.sharding_ddl_coordinators}), whatever its operation: what the coordinator framework
 * ({@code sharding.ShardingDdlCoordinatorService}) stores when a phase is reached.
 */
public interface DdlCoordinatorDocument {
    /** The row's key: {@code "db.coll"} for a collection's operation, the bare {@code "db"} for a database's. */
    String key();

    /** The operation, as stored: {@code "dropCollection"}, {@code "movePrimary"}. */
    String operation();

    /** The next phase to run, by its enum constant's name. */
    String phaseName();

    /** The operation's fields stored as BSON in {@code state}; null when it keeps none there. */
    @Nullable BsonDocument state();
}
