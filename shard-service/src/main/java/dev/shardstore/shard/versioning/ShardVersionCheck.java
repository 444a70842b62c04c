package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.shard.ShardProperties;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The shard side of the shard versioning protocol (mongo/src/mongo/db/s/README.md "Shard versioning and database versioning";
 * docs/sharding-protocol.md "Shard commands"). A command that carries {@code shardVersion} (the version the
 * router used for this shard) is served only when it equals this shard's version of the collection in its
 * filtering metadata ({@link ChunkVersion#UNSHARDED} for an unsharded one):
 * <ol>
 *   <li>no {@code shardVersion} → no check, no orphan filtering;</li>
 *   <li>{@link ChunkVersion#IGNORED} → no check, but orphans are still filtered with the current metadata;</li>
 *   <li>equal to the cached version → serve;</li>
 *   <li>otherwise, when the cache is unknown or stale, or the received version could be newer (another epoch, or
 *       higher in the same epoch), refresh once and re-compare;</li>
 *   <li>still different → StaleConfig (13388) with {@code vWanted} = this shard's version (absent when the
 *       refresh failed), so that whichever side is older refreshes.</li>
 * </ol>
 * {@link CollectionShardingRuntime} runs {@link #decide} while it holds the collection lock, and a refresh (network
 * I/O) with the lock released, then decides again: the check and the command's effect are one step for the
 * critical sections.
 */
@Component
public class ShardVersionCheck {
    private static final Logger log = LoggerFactory.getLogger(ShardVersionCheck.class);

    private final CollectionShardingState state;
    private final ShardMetrics metrics;
    private final String shardName;

    public ShardVersionCheck(CollectionShardingState state, ShardMetrics metrics, ShardProperties properties) {
        this.state = state;
        this.metrics = metrics;
        this.shardName = properties.name();
    }

    /** What {@link #decide} concluded: serve with {@code filter}, or refresh the metadata first. */
    public record Decision(boolean refresh, @Nullable OwnershipFilter filter) {
        static final Decision REFRESH = new Decision(true, null);

        static Decision serve(Optional<OwnershipFilter> filter) {
            return new Decision(false, filter.orElse(null));
        }
    }

    /**
     * Compares {@code received} with the cached filtering metadata of {@code namespace} ({@code db.coll}), without
     * I/O.
     *
     * @param refreshed what this command's own refresh loaded, when it refreshed since it last waited
     * @return serve (with the filtering metadata when the collection is sharded), or refresh first
     * @throws CommandException StaleConfig (13388) when this shard does not serve that version
     */
    public Decision decide(String namespace, ChunkVersion received, @Nullable CollectionFilteringInfo refreshed) {
        CollectionFilteringInfo info = state.cached(namespace).orElse(refreshed);
        if (info == null) {
            return Decision.REFRESH;
        }
        if (received.equals(ChunkVersion.IGNORED) || serves(info, received)) {
            return Decision.serve(filterOf(info, received));
        }
        if (refreshed == null && couldBeNewer(received, info.shardVersion(shardName))) {
            return Decision.REFRESH;
        }
        throw stale(namespace, received, info.shardVersion(shardName));
    }

    /**
     * Loads {@code namespace}'s filtering metadata from the config service, for {@link #decide}.
     *
     * @throws CommandException StaleConfig without {@code vWanted} when the config service cannot answer
     */
    public CollectionFilteringInfo refresh(String namespace, ChunkVersion received) {
        try {
            return state.refresh(namespace);
        } catch (CommandException e) {
            log.warn("cannot refresh the filtering metadata of {}: {}", namespace, e.getMessage());
            throw stale(namespace, received, null);
        }
    }

    /**
     * The {@code shardVersion} a command carries, if any.
     *
     * @throws CommandException TypeMismatch or BadValue for a malformed one
     */
    public static Optional<ChunkVersion> receivedVersion(BsonDocument command) {
        BsonValue field = command.get(InternalApi.SHARD_VERSION_FIELD);
        if (field == null) {
            return Optional.empty();
        }
        if (!field.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'" + InternalApi.SHARD_VERSION_FIELD
                    + "' must be an object, not " + field.getBsonType().name().toLowerCase());
        }
        try {
            return Optional.of(ChunkVersion.fromBson(field.asDocument()));
        } catch (IllegalArgumentException e) {
            throw new CommandException(ErrorCode.BadValue, "'" + InternalApi.SHARD_VERSION_FIELD + "': " + e.getMessage(), e);
        }
    }

    private Optional<OwnershipFilter> filterOf(CollectionFilteringInfo info, ChunkVersion received) {
        return info.table().map(table -> new OwnershipFilter(table, shardName, received));
    }

    private boolean serves(CollectionFilteringInfo info, ChunkVersion received) {
        return info.shardVersion(shardName).equals(received);
    }

    /** True unless this shard already knows a version of the same epoch at least as new. */
    private static boolean couldBeNewer(ChunkVersion received, ChunkVersion known) {
        return !known.sameEpoch(received) || known.isOlderThan(received);
    }

    /** StaleConfig (13388) for {@code received}, with {@code wanted} as {@code vWanted} when known; counted. */
    public CommandException stale(String namespace, ChunkVersion received, @Nullable ChunkVersion wanted) {
        metrics.staleConfig();
        return new StaleConfig(namespace, received, wanted, shardName).toException();
    }
}
