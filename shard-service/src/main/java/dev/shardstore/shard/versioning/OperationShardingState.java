package dev.shardstore.shard.versioning;

import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * The filtering metadata of the command running on the current thread (MongoDB's OperationShardingState): set
 * by {@link CollectionShardingRuntime} once the shard version check accepted the command under the collection lock,
 * read by the scan paths so that every read and write of the command sees one snapshot. A cursor captures its predicate when it is created, so
 * its getMores keep that snapshot. Commands without a shard version run without one (no orphan filtering).
 */
public final class OperationShardingState {
    private static final ThreadLocal<OwnershipFilter> CURRENT = new ThreadLocal<>();
    private static final Predicate<BsonDocument> EVERYTHING = d -> true;

    private OperationShardingState() {
    }

    /** Runs {@code body} with {@code filter} (null: none) as the current command's filtering metadata. */
    public static <T> T runWith(@Nullable OwnershipFilter filter, Supplier<T> body) {
        OwnershipFilter previous = CURRENT.get();
        CURRENT.set(filter);
        try {
            return body.get();
        } finally {
            CURRENT.set(previous);
        }
    }

    /** The current command's filtering metadata for {@code namespace} ({@code db.coll}), if it is versioned on it. */
    public static Optional<OwnershipFilter> filterFor(String namespace) {
        OwnershipFilter filter = CURRENT.get();
        return filter != null && filter.namespace().equals(namespace) ? Optional.of(filter) : Optional.empty();
    }

    /**
     * The documents of {@code namespace} the current command may see: those this shard owns when the command is
     * versioned on a sharded collection, else all.
     */
    public static Predicate<BsonDocument> visible(String namespace) {
        return filterFor(namespace).<Predicate<BsonDocument>>map(f -> f::owns).orElse(EVERYTHING);
    }

    /**
     * Checks that the current command may insert {@code document} into {@code namespace} (see
     * {@link OwnershipFilter#checkInsert}); no check for an unversioned command.
     */
    public static void checkInsert(String namespace, BsonDocument document) {
        filterFor(namespace).ifPresent(f -> f.checkInsert(document));
    }

    /**
     * Checks that {@code after}, a document of {@code namespace} the current command updated, stays on this shard
     * (see {@link OwnershipFilter#checkUpdate}); no check for an unversioned command.
     */
    public static void checkUpdate(String namespace, BsonDocument after) {
        filterFor(namespace).ifPresent(f -> f.checkUpdate(after));
    }
}
