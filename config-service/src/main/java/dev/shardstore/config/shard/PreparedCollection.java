package dev.shardstore.config.shard;

import java.util.List;
import org.bson.BsonDocument;

/**
 * The primary shard's answer to {@code _shardsvrPrepareShardCollection}: {@code {empty, count, splitKeys}}.
 *
 * @param empty     whether the collection holds no document
 * @param count     its number of documents
 * @param splitKeys split keys in shard-key pattern shape chosen so chunks hold about maxChunkSizeBytes (copied)
 */
public record PreparedCollection(boolean empty, long count, List<BsonDocument> splitKeys) {
    public PreparedCollection {
        splitKeys = List.copyOf(splitKeys);
    }
}
