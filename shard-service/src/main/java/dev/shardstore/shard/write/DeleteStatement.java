package dev.shardstore.shard.write;

import dev.shardstore.contracts.bson.Collation;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * One entry of a {@code delete} command's {@code deletes}, its shape checked; the filter is parsed when the statement
 * runs, so that a bad operator fails that statement (a write error) and not the whole batch, as in MongoDB.
 *
 * @param q         the filter
 * @param justOne   MongoDB's {@code limit: 1} (false: {@code limit: 0}, every match)
 * @param hint      the index to read through, as sent; null when absent
 * @param collation the statement's {@code collation} (simple when absent): how {@code q} compares strings
 */
public record DeleteStatement(BsonDocument q, boolean justOne, @Nullable BsonValue hint, Collation collation) {}
