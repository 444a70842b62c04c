package dev.shardstore.engine.query;

import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Matches when any value the path reaches (with implicit array traversal, see {@link Paths#resolve})
 * satisfies the predicate: MongoDB's {@code PathMatchExpression}. Array operators resolve in
 * {@link Paths.Mode#WHOLE_ARRAY}, the others in {@link Paths.Mode#MATCH}.
 */
record PathMatcher(String path, List<String> components, Paths.Mode mode, ValuePredicate predicate) implements Matcher {
    PathMatcher(String path, ValuePredicate predicate) {
        this(path, Paths.split(path), Paths.Mode.MATCH, predicate);
    }

    /** A matcher over whole arrays at the end of the path ({@code $size}, {@code $elemMatch}). */
    static PathMatcher wholeArray(String path, ValuePredicate predicate) {
        return new PathMatcher(path, Paths.split(path), Paths.Mode.WHOLE_ARRAY, predicate);
    }

    @Override
    public boolean matches(BsonDocument doc) {
        for (BsonValue value : Paths.resolve(doc, components, mode)) {
            if (predicate.test(value)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean matchesValue(BsonValue value) {
        return predicate.test(value);
    }

    @Override
    public int matchPosition(BsonDocument doc) {
        for (Paths.Reached reached : Paths.resolveWithPositions(doc, components, mode)) {
            if (predicate.test(reached.value())) {
                // an $elemMatch matches arrays only
                return reached.position() == Paths.NO_POSITION && predicate instanceof ElemMatch elemMatch
                        && reached.value() instanceof BsonArray array
                        ? elemMatch.firstMatchingIndex(array)
                        : reached.position();
            }
        }
        return NOT_MATCHED;
    }

    @Override
    public void collectEqualities(Map<String, BsonValue> into) {
        if (predicate instanceof Comparison comparison && comparison.operator() == Comparison.Operator.EQ) {
            into.putIfAbsent(path, comparison.operand());
        }
    }
}
