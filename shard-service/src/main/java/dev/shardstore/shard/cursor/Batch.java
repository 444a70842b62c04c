package dev.shardstore.shard.cursor;

import java.util.List;
import org.bson.BsonDocument;

/**
 * One batch of a cursor.
 *
 * @param documents the documents, in cursor order
 * @param exhausted true when the cursor has nothing more (its id becomes 0 in the reply)
 */
public record Batch(List<BsonDocument> documents, boolean exhausted) {
    public Batch {
        documents = List.copyOf(documents);
    }
}
