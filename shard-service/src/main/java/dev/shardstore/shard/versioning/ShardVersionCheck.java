package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.shard.ShardProperties;
import java.time.Duration;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The shard side of the shard versioning protocol (reference: "Shard versioning and database versioning";
 * docs/sharding-protocol.md "Shard commands"). A command that carries {@code shardVersion} (the version the
 * router used for this shard) is served only when it equals this shard's version of the collection in its
 * filtering metadata ({@link ChunkVersion#UNSHARDED} for an unsharded one):
 * <ol>
 *   <li>no {@code shardVersion} → no check, no orphan filtering;</li>
 *   <li>while the collection is in a critical section ({@link CriticalSections}) → wait for its end first;</li>
 *   <li>{@link ChunkVersion#IGNORED} → no check, but orphans are still filtered with the current metadata;</li>
 *   <li>equal to the cached version → serve;</li>
 *   <li>otherwise, when the cache is unknown or stale, or the received version could be newer (another epoch, or
 *       higher in the same epoch), refresh once and re-compare;</li>
 *   <li>still different → StaleConfig (13388) with {@code vWanted} = this shard's version (absent when the
 *       refresh failed), so that whichever side is older refreshes.</li>
 * </ol>
 */
@Component
public class ShardVersionCheck {
    private static final Logger log = LoggerFactory.getLogger(ShardVersionCheck.class);

    private final CollectionShardingState state;
    private final CriticalSections criticalSections;
    private final ShardMetrics metrics;
    private final String shardName;
    private final Duration criticalSectionTimeout;

    public ShardVersionCheck(CollectionShardingState state, CriticalSections criticalSections, ShardMetrics metrics,
            ShardProperties properties) {
        this.state = state;
        this.criticalSections = criticalSections;
        this.metrics = metrics;
        this.shardName = properties.name();
        this.criticalSectionTimeout = properties.criticalSectionTimeout();
    }

    /**
     * Checks the {@code shardVersion} of {@code command}, if any, for {@code namespace} ({@code db.coll}).
     *
     * @return the command's filtering metadata when it is versioned and the collection sharded; empty otherwise
     * @throws CommandException TypeMismatch or BadValue for a malformed {@code shardVersion}, StaleConfig (13388)
     *                          when this shard does not serve that version
     */
    public Optional<OwnershipFilter> check(String namespace, BsonDocument command) {
        Optional<ChunkVersion> received = receivedVersion(command);
        if (received.isEmpty()) {
            return Optional.empty();
        }
        ChunkVersion version = received.get();
        if (!criticalSections.awaitExit(namespace, criticalSectionTimeout)) {
            throw stale(namespace, version, null);
        }
        if (version.equals(ChunkVersion.IGNORED)) {
            return filterOf(state.get(namespace), version);
        }
        Optional<CollectionFilteringInfo> cached = state.cached(namespace);
        CollectionFilteringInfo info = cached.isPresent() ? cached.get() : refreshOrStale(namespace, version);
        if (!serves(info, version) && cached.isPresent() && couldBeNewer(version, info.shardVersion(shardName))) {
            info = refreshOrStale(namespace, version);
        }
        if (!serves(info, version)) {
            throw stale(namespace, version, info.shardVersion(shardName));
        }
        return filterOf(info, version);
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

    private CollectionFilteringInfo refreshOrStale(String namespace, ChunkVersion received) {
        try {
            return state.refresh(namespace);
        } catch (CommandException e) {
            log.warn("cannot refresh the filtering metadata of {}: {}", namespace, e.getMessage());
            throw stale(namespace, received, null);
        }
    }

    private CommandException stale(String namespace, ChunkVersion received, @Nullable ChunkVersion wanted) {
        metrics.staleConfig();
        return new StaleConfig(namespace, received, wanted, shardName).toException();
    }
}
