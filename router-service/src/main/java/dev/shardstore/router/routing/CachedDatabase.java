package dev.shardstore.router.routing;

import dev.shardstore.contracts.version.DatabaseVersion;
import java.util.Objects;
import org.bson.BsonDocument;

/**
 * What the router's cache knows of a database: its primary shard and DatabaseVersion.
 *
 * @param name    the database name
 * @param primary the primary shard's id
 * @param version the DatabaseVersion attached to every request for the database's unsharded collections
 */
public record CachedDatabase(String name, String primary, DatabaseVersion version) {
    public CachedDatabase {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(primary, "primary");
        Objects.requireNonNull(version, "version");
    }

    /** From a {@code config.databases} document {@code {_id, primary, version}}. */
    public static CachedDatabase fromCatalog(BsonDocument entry) {
        return new CachedDatabase(entry.getString("_id").getValue(), entry.getString("primary").getValue(),
                DatabaseVersion.fromBson(entry.getDocument("version")));
    }
}
