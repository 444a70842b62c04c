package dev.shardstore.shard.cursor;

import dev.shardstore.shard.storage.StoredDocument;
import org.bson.BsonDocument;

/**
 * A stored document that matched a filter, with its decoded form.
 *
 * @param stored   the row as read
 * @param document the decoded document (mutable; owned by whoever holds the match)
 */
public record Match(StoredDocument stored, BsonDocument document) {}
