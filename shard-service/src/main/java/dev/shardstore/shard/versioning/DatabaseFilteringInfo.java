package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.version.DatabaseVersion;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What this shard knows about one database's placement, from the config service: the database's
 * current version and whether this shard is its primary shard (MongoDB's DatabaseShardingState).
 *
 * @param version the database's version in the authoritative routing table; null when the database does not exist
 * @param primary true when this shard is the database's primary shard
 */
public record DatabaseFilteringInfo(@Nullable DatabaseVersion version, boolean primary) {
    /** The database does not exist in the routing table. */
    public static final DatabaseFilteringInfo NO_DATABASE = new DatabaseFilteringInfo(null, false);

    /** The version this shard serves, present only when it is the primary shard. */
    public Optional<DatabaseVersion> wantedVersion() {
        return primary ? Optional.ofNullable(version) : Optional.empty();
    }
}
