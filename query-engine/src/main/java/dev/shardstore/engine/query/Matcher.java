package dev.shardstore.engine.query;

import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** A node of a parsed filter: MongoDB's {@code MatchExpression}. Implementations are immutable. */
interface Matcher {
    /** What {@link #matchPosition} answers for a document that does not match. */
    int NOT_MATCHED = -2;

    boolean matches(BsonDocument doc);

    /**
     * Whether the condition holds for {@code value} itself, taken as the value its path already reached: no path
     * is resolved and no array is traversed (MongoDB's {@code matchesSingleElement}). The operator form of
     * {@code $elemMatch} tests each element with it, so {@code {$elemMatch: {$gt: 3}}} does not look inside an
     * element {@code [4]} (MongoDB manual, "$elemMatch (query)": an element must satisfy all the conditions).
     */
    boolean matchesValue(BsonValue value);

    /**
     * Whether {@code doc} matches, and through which array position: {@link #NOT_MATCHED}, or the position in
     * the first array a path traversed to satisfy the condition ({@link Paths#resolveWithPositions}), or
     * {@link Paths#NO_POSITION}. Only path conditions and their AND report positions, as MongoDB's
     * {@code elemMatchKey}; the default reports none.
     */
    default int matchPosition(BsonDocument doc) {
        return matches(doc) ? Paths.NO_POSITION : NOT_MATCHED;
    }

    /**
     * Adds the equality conditions this node guarantees ({@code path = value}) to {@code into}, keeping
     * the first value for a path. Only AND-ed equalities count; the default contributes nothing.
     */
    default void collectEqualities(Map<String, BsonValue> into) {}
}
