package dev.shardstore.shard.storage;

import dev.shardstore.contracts.namespace.Namespace;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;
import org.bson.BsonDocument;

/**
 * One collection on this shard: its namespace, instance uuid (new on drop and re-create, as MongoDB's
 * collection UUID), the PostgreSQL table holding its documents and its create options.
 *
 * @param namespace the collection's namespace
 * @param uuid      the collection instance
 * @param table     the document table, always {@code c_} followed by 32 hex digits (checked here, so
 *                  the name is safe to place in SQL)
 * @param options   the {@code create} options, {@code {}} for an implicitly created collection
 */
public record CollectionInfo(Namespace namespace, UUID uuid, String table, BsonDocument options) {
    private static final Pattern TABLE_NAME = Pattern.compile("c_[0-9a-f]{32}");

    public CollectionInfo {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(options, "options");
        if (table == null || !TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("not a collection table name: " + table);
        }
    }

    /** A new collection instance with a fresh uuid and the table name derived from it. */
    static CollectionInfo newInstance(Namespace namespace, BsonDocument options) {
        UUID uuid = UUID.randomUUID();
        return new CollectionInfo(namespace, uuid, "c_" + uuid.toString().replace("-", ""), options);
    }
}
