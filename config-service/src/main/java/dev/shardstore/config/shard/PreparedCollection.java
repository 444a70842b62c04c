package dev.shardstore.config.shard;

import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import java.util.List;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * The primary shard's answer to {@code _shardsvrPrepareShardCollection}: {@code {empty, count, splitKeys}}.
 *
 * @param empty     whether the collection holds no document
 * @param count     its number of documents
 * @param splitKeys split keys in shard-key pattern shape chosen so chunks hold about maxChunkSizeBytes (copied)
 * @param timeseriesFields the options of the time-series collection whose buckets collection was prepared, or null
 *                  when the namespace is not a time-series collection
 */
public record PreparedCollection(boolean empty, long count, List<BsonDocument> splitKeys, @Nullable TimeseriesOptions timeseriesFields) {
    public PreparedCollection {
        splitKeys = List.copyOf(splitKeys);
    }
}
