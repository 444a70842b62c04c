package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.support.operation.OperationContext;
import java.util.Optional;
import java.util.function.Predicate;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * What the shard version check accepted for one command (MongoDB's {@code OperationShardingState}, a decoration of
 * its operation context): the {@code shardVersion} and {@code databaseVersion} the command was sent with, and the
 * filtering metadata it runs with. {@link CollectionShardingRuntime} decorates the command's
 * {@link OperationContext} with it once the versions are accepted under the collection lock; the scan and write
 * paths read it from the context they are passed, so every read and write of the command sees one snapshot. A cursor
 * captures its filter when it is created, so its getMores keep that snapshot. A command without a shard version has
 * no filter (no orphan filtering).
 *
 * @param shardVersion    the version the command was sent with for its collection, if any
 * @param databaseVersion the database version it was sent with, if any
 * @param filter          the ownership filter of the version accepted, or null when the command is unversioned
 */
public record OperationShardingState(@Nullable ChunkVersion shardVersion, @Nullable DatabaseVersion databaseVersion,
        @Nullable OwnershipFilter filter) {
    /** The key of this state on an operation's context. */
    public static final OperationContext.Decoration<OperationShardingState> DECORATION =
            new OperationContext.Decoration<>("operationShardingState", OperationShardingState.class);

    private static final Predicate<BsonDocument> EVERYTHING = d -> true;

    /** The filtering metadata of {@code opCtx}'s command for {@code namespace} ({@code db.coll}), if it is versioned on it. */
    public static Optional<OwnershipFilter> filterFor(OperationContext opCtx, String namespace) {
        OperationShardingState state = opCtx.get(DECORATION);
        OwnershipFilter filter = state == null ? null : state.filter();
        return filter != null && filter.namespace().equals(namespace) ? Optional.of(filter) : Optional.empty();
    }

    /**
     * The documents of {@code namespace} that {@code opCtx}'s command may see: those this shard owns when the command is
     * versioned on a sharded collection, else all.
     */
    public static Predicate<BsonDocument> visible(OperationContext opCtx, String namespace) {
        return filterFor(opCtx, namespace).<Predicate<BsonDocument>>map(f -> f::owns).orElse(EVERYTHING);
    }

    /**
     * The documents of {@code namespace} that {@code opCtx}'s read at cluster time {@code readAt} may see: those this
     * shard owned then ({@link OwnershipFilter#atClusterTime}) when the command is versioned on a sharded collection,
     * else all; {@link #visible} for a read of the latest data ({@code readAt} null).
     *
     * @throws dev.shardstore.contracts.error.CommandException StaleChunkHistory (183) when the chunks' history does
     *                                                         not reach back to {@code readAt}
     */
    public static Predicate<BsonDocument> visible(OperationContext opCtx, String namespace, @Nullable BsonTimestamp readAt) {
        if (readAt == null) {
            return visible(opCtx, namespace);
        }
        return filterFor(opCtx, namespace).map(f -> f.atClusterTime(readAt)).<Predicate<BsonDocument>>map(f -> f::owns).orElse(EVERYTHING);
    }

    /**
     * Checks that {@code opCtx}'s command may insert {@code document} into {@code namespace} (see
     * {@link OwnershipFilter#checkInsert}); no check for an unversioned command.
     */
    public static void checkInsert(OperationContext opCtx, String namespace, BsonDocument document) {
        filterFor(opCtx, namespace).ifPresent(f -> f.checkInsert(document));
    }

    /**
     * Checks that {@code after}, a document of {@code namespace} that {@code opCtx}'s command updated from
     * {@code before}, stays on this shard (see {@link OwnershipFilter#checkUpdate}); no check for an unversioned
     * command.
     */
    public static void checkUpdate(OperationContext opCtx, String namespace, BsonDocument before, BsonDocument after) {
        filterFor(opCtx, namespace).ifPresent(f -> f.checkUpdate(before, after));
    }

    /**
     * Checks that {@code document}, which {@code opCtx}'s update creates in {@code namespace}, falls on this shard (see
     * {@link OwnershipFilter#checkCreated}); no check for an unversioned command.
     */
    public static void checkCreated(OperationContext opCtx, String namespace, BsonDocument document) {
        filterFor(opCtx, namespace).ifPresent(f -> f.checkCreated(document));
    }
}
