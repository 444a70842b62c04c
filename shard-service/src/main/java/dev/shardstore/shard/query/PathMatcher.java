package dev.shardstore.shard.query;

import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Matches when any value the path reaches (with implicit array traversal, see {@link Paths#resolve})
 * satisfies the predicate: MongoDB's {@code PathMatchExpression}.
 */
record PathMatcher(String path, List<String> components, ValuePredicate predicate) implements Matcher {
    PathMatcher(String path, ValuePredicate predicate) {
        this(path, Paths.split(path), predicate);
    }

    @Override
    public boolean matches(BsonDocument doc) {
        for (BsonValue value : Paths.resolve(doc, components, Paths.Mode.MATCH)) {
            if (predicate.test(value)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void collectEqualities(Map<String, BsonValue> into) {
        if (predicate instanceof Comparison comparison && comparison.operator() == Comparison.Operator.EQ) {
            into.putIfAbsent(path, comparison.operand());
        }
    }
}
