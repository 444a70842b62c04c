package dev.shardstore.engine.query;

import org.bson.BsonValue;

/**
 * A test of one value reached by a path: MongoDB's {@code matchesSingleElement}. The argument is
 * {@code null} when the path is missing.
 */
@FunctionalInterface
interface ValuePredicate {
    boolean test(BsonValue value);
}
