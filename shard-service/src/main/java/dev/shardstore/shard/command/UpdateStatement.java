package dev.shardstore.shard.command;

import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * One entry of an {@code update} command's {@code updates}, as sent: its filter and update are parsed
 * when the statement runs, so that a bad operator fails that statement (a write error) and not the
 * whole batch, as in MongoDB.
 *
 * @param q      the filter
 * @param u      the update: a replacement or operator document (a pipeline array is refused when run)
 * @param upsert insert a document when nothing matches
 * @param multi  update every match rather than the first
 * @param arrayFilters the {@code arrayFilters} for {@code $[<identifier>]}, as sent (empty when absent)
 */
record UpdateStatement(BsonDocument q, BsonValue u, boolean upsert, boolean multi, List<BsonValue> arrayFilters) {}
