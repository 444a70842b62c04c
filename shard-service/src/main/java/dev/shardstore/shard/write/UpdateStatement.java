package dev.shardstore.shard.write;

import dev.shardstore.contracts.bson.Collation;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * One entry of an {@code update} command's {@code updates}, as sent: its filter and update are parsed
 * when the statement runs, so that a bad operator fails that statement (a write error) and not the
 * whole batch, as in MongoDB.
 *
 * @param q      the filter
 * @param u      the update: a replacement or operator document, or a pipeline array
 * @param upsert insert a document when nothing matches
 * @param multi  update every match rather than the first
 * @param arrayFilters the {@code arrayFilters} for {@code $[<identifier>]}, as sent (empty when absent)
 * @param c      the pipeline's constants ({@code c}), as sent; null when absent
 * @param hint   the index to read through, as sent; null when absent
 * @param sort   which match a single-document update changes (MongoDB 8.0), as sent; null when absent
 * @param collation the statement's {@code collation} (simple when absent): how {@code q}, {@code sort},
 *               {@code arrayFilters} and the value-comparing operators of {@code u} compare strings
 */
public record UpdateStatement(BsonDocument q, BsonValue u, boolean upsert, boolean multi, List<BsonValue> arrayFilters,
        @Nullable BsonValue c, @Nullable BsonValue hint, @Nullable BsonDocument sort, Collation collation) {}
