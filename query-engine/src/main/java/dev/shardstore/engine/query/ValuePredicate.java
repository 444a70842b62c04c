package dev.shardstore.engine.query;

import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * A test of one value reached by a path: MongoDB's {@code matchesSingleElement}. The argument is
 * {@code null} when the path is missing.
 */
@FunctionalInterface
interface ValuePredicate {
    boolean test(@Nullable BsonValue value);
}
