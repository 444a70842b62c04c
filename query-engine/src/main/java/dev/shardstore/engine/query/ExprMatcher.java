package dev.shardstore.engine.query;

import dev.shardstore.engine.aggregate.expression.ExprCondition;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * {@code {$expr: <expression>}} at the top level of a filter or inside {@code $and $or $nor} (MongoDB manual,
 * "$expr"); it contributes no equality and no index or shard-key bounds.
 *
 * @param condition the parsed expression with the command's variables
 */
record ExprMatcher(ExprCondition condition) implements Matcher {
    @Override
    public boolean matches(BsonDocument doc) {
        return condition.test(doc);
    }

    /** A value is tested as the document it is; {@code $expr} is refused where values are matched, so this is a fallback. */
    @Override
    public boolean matchesValue(BsonValue value) {
        return value.isDocument() && condition.test(value.asDocument());
    }
}
