package dev.shardstore.support.catalog;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardedCollection;
import java.util.List;
import java.util.Objects;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads a collection's routing table from the config service, for the router's routing table cache and the shard's
 * filtering metadata alike (docs/sharding-protocol.md; MongoDB's {@code CatalogCache} refresh, "Types of refreshes"):
 * {@code {_configsvrGetRoutingTable: "db.coll", sinceVersion?}} on {@code admin} answers
 * {@code {ok: 1, collection: <config.collections entry> | null, chunks: [...], full: bool}}.
 *
 * <ul>
 *   <li>With a previous table, asks only for the chunks newer than its collection version and applies them
 *       ({@link RoutingTable#withChanges}): an incremental refresh.</li>
 *   <li>A full refresh builds the table from scratch: without a previous table, when the answer says {@code full}
 *       (the epoch changed), and when an incremental answer is of another epoch, does not fit the previous table or
 *       cannot be read (then the table is asked for again, in full).</li>
 *   <li>{@code collection: null} (unsharded, dropped, or unknown) is a full refresh to "no table".</li>
 *   <li>A refresh that fails (the config service's error, no answer, a full answer that is no valid table) is tried
 *       {@value #ATTEMPTS} times in all (MongoDB's refresh retries, "Operational Caveats"), then its last error is
 *       thrown.</li>
 * </ul>
 *
 * Stateless and thread-safe; callers count refreshes by {@link Refresh#incremental()}.
 */
public final class RoutingTableLoader {
    /** One try and two retries. */
    public static final int ATTEMPTS = 3;

    private static final Logger log = LoggerFactory.getLogger(RoutingTableLoader.class);

    private final ConfigCommands config;

    public RoutingTableLoader(ConfigCommands config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * One refresh's result.
     *
     * @param table       the collection's routing table; null when it is not sharded (or does not exist)
     * @param incremental whether it was built from the previous table and the newer chunks only
     */
    public record Refresh(@Nullable RoutingTable table, boolean incremental) {}

    /**
     * The current routing table of {@code namespace}, refreshed incrementally from {@code previous} when given.
     *
     * @throws CommandException after {@value #ATTEMPTS} attempts: the config service's error, HostUnreachable /
     *                          NetworkTimeout when it does not answer, or InternalError for an answer that is not a
     *                          valid routing table
     */
    public Refresh load(String namespace, @Nullable RoutingTable previous) {
        for (int attempt = 1; ; attempt++) {
            try {
                return once(namespace, previous);
            } catch (RuntimeException e) { // unreachable config service, or a reply that does not make a table
                log.warn("routing table refresh of {} failed (attempt {} of {}): {}", namespace, attempt, ATTEMPTS, e.getMessage());
                if (attempt == ATTEMPTS) {
                    throw e instanceof CommandException error ? error
                            : new CommandException(ErrorCode.InternalError, "routing table of " + namespace + " is unusable: " + e.getMessage(), e);
                }
            }
        }
    }

    private Refresh once(String namespace, @Nullable RoutingTable previous) {
        if (previous != null) {
            BsonDocument reply = ask(namespace, previous);
            try {
                ShardedCollection collection = collectionOf(reply);
                if (collection == null) {
                    return new Refresh(null, false);
                }
                boolean full = reply.getBoolean("full", BsonBoolean.FALSE).getValue();
                if (full) {
                    return new Refresh(RoutingTable.of(collection, chunksOf(reply)), false);
                }
                if (collection.epoch().equals(previous.collection().epoch())
                        && collection.timestamp().equals(previous.collection().timestamp())) {
                    return new Refresh(previous.withChanges(chunksOf(reply)).withCollection(collection), true);
                }
                // a partial answer for another epoch is useless: start over
            } catch (RuntimeException e) {
                log.warn("incremental refresh of {} did not fit the cached table ({}); reloading in full", namespace, e.getMessage());
            }
        }
        BsonDocument reply = ask(namespace, null);
        try {
            ShardedCollection collection = collectionOf(reply);
            return new Refresh(collection == null ? null : RoutingTable.of(collection, chunksOf(reply)), false);
        } catch (RuntimeException e) {
            throw new CommandException(ErrorCode.InternalError, "the config service answered _configsvrGetRoutingTable for '"
                    + namespace + "' without a valid routing table: " + e.getMessage(), e);
        }
    }

    private BsonDocument ask(String namespace, @Nullable RoutingTable since) {
        BsonDocument command = new BsonDocument("_configsvrGetRoutingTable", new BsonString(namespace));
        if (since != null) {
            command.append("sinceVersion", since.collectionVersion().toBson());
        }
        return config.run(command);
    }

    private static @Nullable ShardedCollection collectionOf(BsonDocument reply) {
        BsonValue entry = reply.get("collection");
        return entry == null || entry.isNull() ? null : ShardedCollection.fromBson(entry.asDocument());
    }

    private static List<Chunk> chunksOf(BsonDocument reply) {
        return reply.getArray("chunks").stream().map(c -> Chunk.fromBson(c.asDocument())).toList();
    }
}
