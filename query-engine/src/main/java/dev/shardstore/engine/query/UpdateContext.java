package dev.shardstore.engine.query;

import java.time.Instant;
import java.util.OptionalInt;
import org.bson.BsonDocument;

/**
 * What an {@link UpdateOperation} may need beyond its own field while one update applies to one document.
 *
 * @param root the whole working copy being updated ({@code $rename} reads and removes its source there)
 * @param inserting whether this is the insert side of an upsert ({@code $setOnInsert} applies only then)
 * @param now the one time of this update ({@code $currentDate})
 * @param matchedPosition the array position by which the query matched ({@link Filter#matchedPosition}), for
 *     the positional {@code $}
 */
record UpdateContext(BsonDocument root, boolean inserting, Instant now, OptionalInt matchedPosition) {}
