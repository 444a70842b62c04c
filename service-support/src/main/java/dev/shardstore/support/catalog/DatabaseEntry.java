package dev.shardstore.support.catalog;

import dev.shardstore.contracts.version.DatabaseVersion;
import java.util.Objects;

/**
 * A database's entry in the config service's catalog ({@code config.databases}): its primary shard and
 * DatabaseVersion, as the router caches it and a shard derives its filtering information from it.
 *
 * @param name    the database name
 * @param primary the primary shard's id
 * @param version the DatabaseVersion attached to every request for the database's unsharded collections
 */
public record DatabaseEntry(String name, String primary, DatabaseVersion version) {
    public DatabaseEntry {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(primary, "primary");
        Objects.requireNonNull(version, "version");
    }
}
