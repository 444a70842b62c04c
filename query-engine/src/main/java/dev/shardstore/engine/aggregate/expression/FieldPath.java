package dev.shardstore.engine.aggregate.expression;

import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * A field path {@code "$a.b"} (from {@code $$CURRENT}) or a variable path {@code "$$name.a.b"}
 * (MongoDB manual, "Field Paths"). Through an array the path maps over the elements: documents
 * contribute their value of the rest of the path, other elements and missing values are dropped, so
 * {@code "$a.b"} on {@code {a: [{b: 1}, {c: 2}, {b: 3}]}} is {@code [1, 3]}. A scalar met before the end
 * is missing.
 *
 * @param variable the variable the path starts from ({@code CURRENT} for {@code "$field"})
 * @param fields   the dotted components after it
 */
record FieldPath(String variable, List<String> fields) implements Expression {
    @Override
    public @Nullable BsonValue evaluate(Variables variables) {
        BsonValue start = variables.get(variable);
        return start == null ? null : walk(start, 0);
    }

    private @Nullable BsonValue walk(BsonValue value, int index) {
        if (index == fields.size()) {
            return value;
        }
        if (value.isDocument()) {
            BsonValue next = value.asDocument().get(fields.get(index));
            return next == null ? null : walk(next, index + 1);
        }
        if (value.isArray()) {
            BsonArray out = new BsonArray();
            for (BsonValue element : value.asArray()) {
                if (element.isDocument() || element.isArray()) {
                    BsonValue reached = walk(element, index);
                    if (reached != null) {
                        out.add(reached);
                    }
                }
            }
            return out;
        }
        return null;
    }
}
