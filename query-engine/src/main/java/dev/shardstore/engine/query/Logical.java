package dev.shardstore.engine.query;

import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** The logical matchers: {@code $and}, {@code $or}, {@code $nor} and {@code $not} (MongoDB's {@code expression_tree}). */
final class Logical {
    private Logical() {}

    /** All children match; the implicit AND of a filter document's fields and {@code $and}. */
    record AllOf(List<Matcher> children) implements Matcher {
        @Override
        public boolean matches(BsonDocument doc) {
            return children.stream().allMatch(child -> child.matches(doc));
        }

        @Override
        public boolean matchesValue(BsonValue value) {
            return children.stream().allMatch(child -> child.matchesValue(value));
        }

        /** The first position a child reports. */
        @Override
        public int matchPosition(BsonDocument doc) {
            int position = Paths.NO_POSITION;
            for (Matcher child : children) {
                int childPosition = child.matchPosition(doc);
                if (childPosition == NOT_MATCHED) {
                    return NOT_MATCHED;
                }
                if (position == Paths.NO_POSITION) {
                    position = childPosition;
                }
            }
            return position;
        }

        @Override
        public void collectEqualities(Map<String, BsonValue> into) {
            children.forEach(child -> child.collectEqualities(into));
        }
    }

    /** {@code $or}: at least one child matches. */
    record AnyOf(List<Matcher> children) implements Matcher {
        @Override
        public boolean matches(BsonDocument doc) {
            return children.stream().anyMatch(child -> child.matches(doc));
        }

        @Override
        public boolean matchesValue(BsonValue value) {
            return children.stream().anyMatch(child -> child.matchesValue(value));
        }
    }

    /** {@code $nor}: no child matches. */
    record NoneOf(List<Matcher> children) implements Matcher {
        @Override
        public boolean matches(BsonDocument doc) {
            return children.stream().noneMatch(child -> child.matches(doc));
        }

        @Override
        public boolean matchesValue(BsonValue value) {
            return children.stream().noneMatch(child -> child.matchesValue(value));
        }
    }

    /** {@code $not}, {@code $ne}, {@code $nin}, {@code $exists: false}: negation of a whole path expression. */
    record Not(Matcher child) implements Matcher {
        @Override
        public boolean matches(BsonDocument doc) {
            return !child.matches(doc);
        }

        @Override
        public boolean matchesValue(BsonValue value) {
            return !child.matchesValue(value);
        }
    }

    /** AND of the children, or the single child itself. */
    static Matcher allOf(List<Matcher> children) {
        return children.size() == 1 ? children.get(0) : new AllOf(List.copyOf(children));
    }
}
