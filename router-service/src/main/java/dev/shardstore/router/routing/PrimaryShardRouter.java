package dev.shardstore.router.routing;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.http.CommandClient;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.router.RouterProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * The router side of database versioning for unsharded collections (DESIGN.md §5; reference:
 * "Versioning updates"): sends a statement to the database's primary shard with the cached
 * DatabaseVersion attached; on {@code StaleDbVersion} (249) drops the cache entry, reloads it and
 * retries, at most {@code shardstore.router.max-stale-retries} attempts in all (mongos: 10). The
 * shard refreshes itself when it is the older side.
 */
@Component
public class PrimaryShardRouter {
    private final DatabaseCache databases;
    private final ShardRegistry shards;
    private final CommandClient client;
    private final int maxAttempts;
    private final Counter staleRetries;

    public PrimaryShardRouter(DatabaseCache databases, ShardRegistry shards, CommandClient client, RouterProperties properties,
            MeterRegistry meters) {
        this.databases = databases;
        this.shards = shards;
        this.client = client;
        this.maxAttempts = properties.maxStaleRetries();
        this.staleRetries = Counter.builder("shardstore.router.stale.retries").tag("kind", "database")
                .description("statements retried after StaleDbVersion").register(meters);
    }

    /**
     * Runs {@code command} on the primary shard of {@code db}, creating the database first when
     * {@code create} is true (writes create databases, as in MongoDB).
     *
     * @return the shard's reply, which may be an error reply other than StaleDbVersion; empty when the
     *         database does not exist and {@code create} is false
     * @throws CommandException StaleDbVersion when every attempt met stale information; HostUnreachable or
     *                          NetworkTimeout when the shard or the config service does not answer
     */
    public Optional<ShardReply> run(String db, BsonDocument command, boolean create) {
        CommandException lastStale = null;
        for (int attempt = 0; attempt < maxAttempts; attempt++) {
            Optional<CachedDatabase> cached = create ? Optional.of(databases.getOrCreate(db)) : databases.get(db);
            if (cached.isEmpty()) {
                return Optional.empty();
            }
            CachedDatabase target = cached.get();
            BsonDocument versioned = new BsonDocument();
            versioned.putAll(command); // shallow: the (possibly large) values are shared, not copied
            versioned.put(InternalApi.DATABASE_VERSION_FIELD, target.version().toBson());
            BsonDocument reply = client.run(target.primary(), shards.hostOf(target.primary()), db, versioned);
            if (!isStale(reply)) {
                return Optional.of(new ShardReply(target.primary(), reply));
            }
            lastStale = ErrorReplies.toException(reply);
            staleRetries.increment();
            databases.invalidate(db);
        }
        throw new CommandException(ErrorCode.StaleDbVersion, "routing information for database '" + db + "' was still stale after "
                + maxAttempts + " attempts: " + lastStale.getMessage(), lastStale.extraInfo());
    }

    private static boolean isStale(BsonDocument reply) {
        return ErrorReplies.isError(reply) && reply.isNumber("code") && reply.getNumber("code").intValue() == ErrorCode.StaleDbVersion.code();
    }
}
