package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.shard.ShardMetrics;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The shard side of the database versioning protocol (mongo/src/mongo/db/s/README.md "Shard versioning and database
 * versioning"; docs/architecture.md "Database versioning"). A command that carries {@code databaseVersion} (the router's cached
 * version) is served only when this shard is the database's primary at exactly that version:
 * <ol>
 *   <li>no {@code databaseVersion} → no check;</li>
 *   <li>equal to the cached version of a primary → serve;</li>
 *   <li>otherwise, when the cache is unknown or the received version could be newer than the cache
 *       (other uuid, higher lastMod), refresh from the config service once and re-check;</li>
 *   <li>still different → StaleDbVersion (249) with {@code db}, {@code vReceived} and, when this shard
 *       is primary, {@code vWanted}, so that whichever side is older refreshes.</li>
 * </ol>
 */
@Component
public class DatabaseVersionCheck {
    private final DatabaseShardingState state;
    private final ShardMetrics metrics;

    public DatabaseVersionCheck(DatabaseShardingState state, ShardMetrics metrics) {
        this.state = state;
        this.metrics = metrics;
    }

    /**
     * Compares {@code received} with the cached filtering information of {@code db}, without I/O (see
     * {@link ShardVersionCheck#decide} for how {@link CollectionShardingRuntime} uses it).
     *
     * @param refreshed what this command's own refresh loaded, when it refreshed since it last waited
     * @return true to serve, false to refresh first ({@link DatabaseShardingState#refresh}) and decide again
     * @throws CommandException StaleDbVersion (249) when this shard does not serve that version
     */
    public boolean decide(String db, DatabaseVersion received, @Nullable DatabaseFilteringInfo refreshed) {
        DatabaseFilteringInfo info = state.cached(db).orElse(refreshed);
        if (info == null) {
            return false;
        }
        if (serves(info, received)) {
            return true;
        }
        if (refreshed == null && couldBeNewer(received, info)) {
            return false;
        }
        metrics.staleDbVersion();
        throw stale(db, received, info);
    }

    /**
     * StaleDbVersion (249) for a command that waited for {@code db}'s critical section longer than the wait timeout:
     * without {@code vWanted}, since the version the section's operation (movePrimary) commits is not known yet; the
     * router refreshes and retries.
     */
    public CommandException staleInCriticalSection(String db, DatabaseVersion received) {
        metrics.staleDbVersion();
        return new CommandException(ErrorCode.StaleDbVersion, "database '" + db + "' is in a critical section (its primary shard"
                + " is being moved) for longer than this command may wait; received " + received,
                new BsonDocument("db", new BsonString(db)).append("vReceived", received.toBson()));
    }

    /**
     * The {@code databaseVersion} a command carries, if any.
     *
     * @throws CommandException TypeMismatch or BadValue for a malformed one
     */
    public static Optional<DatabaseVersion> receivedVersion(BsonDocument command) {
        BsonValue field = command.get(InternalApi.DATABASE_VERSION_FIELD);
        if (field == null) {
            return Optional.empty();
        }
        if (!field.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'" + InternalApi.DATABASE_VERSION_FIELD
                    + "' must be an object, not " + field.getBsonType().name().toLowerCase());
        }
        try {
            return Optional.of(DatabaseVersion.fromBson(field.asDocument()));
        } catch (IllegalArgumentException e) {
            throw new CommandException(ErrorCode.BadValue, "'" + InternalApi.DATABASE_VERSION_FIELD + "': " + e.getMessage(), e);
        }
    }

    private static boolean serves(DatabaseFilteringInfo info, DatabaseVersion received) {
        return info.primary() && received.equals(info.version());
    }

    /** True unless the cache already knows a version of the same database instance at least as new. */
    private static boolean couldBeNewer(DatabaseVersion received, DatabaseFilteringInfo info) {
        DatabaseVersion known = info.version();
        return known == null || !known.uuid().equals(received.uuid()) || known.isOlderThan(received);
    }

    private static CommandException stale(String db, DatabaseVersion received, DatabaseFilteringInfo info) {
        BsonDocument extra = new BsonDocument("db", new BsonString(db)).append("vReceived", received.toBson());
        info.wantedVersion().ifPresent(wanted -> extra.append("vWanted", wanted.toBson()));
        String wanted = info.wantedVersion().map(DatabaseVersion::toString)
                .orElse(info.version() == null ? "none: the database does not exist" : "none: this shard is not its primary");
        return new CommandException(ErrorCode.StaleDbVersion,
                "database version mismatch for database '" + db + "': received " + received + ", wanted " + wanted, extra);
    }
}
