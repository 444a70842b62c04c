package dev.shardstore.shard.storage;

import dev.shardstore.contracts.bson.Collation;
import java.util.Optional;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The one place a shard resolves the collation a command runs under (MongoDB manual, "Collation": "if no collation is
 * specified for the operation, the operation uses the collection's default collation"): the command's own
 * {@code collation} when it gives one ({@code {locale: "simple"}} included), else the collection's default, which
 * {@code create} stored as a full spec in its options' {@code collation} field, else the simple collation.
 */
public final class CollectionCollation {
    /** The create option (and listCollections {@code options} field) holding a collection's default collation. */
    public static final String OPTION = "collation";

    private CollectionCollation() {}

    /** The collection's default collation: {@code options.collation}, {@link Collation#SIMPLE} when it has none. */
    public static Collation defaultOf(CollectionInfo c) {
        return Collation.parse("options." + OPTION, c.options().get(OPTION));
    }

    /**
     * The collation a command on {@code collection} runs under.
     *
     * @param path       the command's field as errors name it, e.g. {@code find.collation}
     * @param value      the command's {@code collation} field, null when absent
     * @param collection the collection, empty when it does not exist (then the simple collation is the default)
     * @throws dev.shardstore.contracts.error.CommandException as {@link Collation#parse} for a malformed {@code value}
     */
    public static Collation effective(String path, @Nullable BsonValue value, Optional<CollectionInfo> collection) {
        return value != null ? Collation.parse(path, value) : collection.map(CollectionCollation::defaultOf).orElse(Collation.SIMPLE);
    }
}
