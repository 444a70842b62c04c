package dev.shardstore.engine.aggregate.expression;

import java.util.HashMap;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The variables an {@link Expression} sees: {@code ROOT} (the document entering the stage), {@code CURRENT}
 * (the same, the base of {@code "$field"} paths) and those bound by {@code $map}/{@code $filter}
 * ({@code this} or the {@code as} name) and {@code $let}-like scopes. Immutable: {@link #with} returns a
 * new scope.
 */
public final class Variables {
    private final Map<String, BsonValue> values;

    private Variables(Map<String, BsonValue> values) {
        this.values = values;
    }

    /** The scope of a stage evaluating {@code root}: {@code $$ROOT} and {@code $$CURRENT} are the document. */
    public static Variables of(BsonDocument root) {
        Map<String, BsonValue> values = new HashMap<>();
        values.put("ROOT", root);
        values.put("CURRENT", root);
        return new Variables(values);
    }

    /** This scope with {@code name} bound to {@code value} (shadowing an outer binding). */
    public Variables with(String name, BsonValue value) {
        Map<String, BsonValue> copy = new HashMap<>(values);
        copy.put(name, value);
        return new Variables(copy);
    }

    /** The value of {@code name}, or null when it is not bound. */
    @Nullable BsonValue get(String name) {
        return values.get(name);
    }
}
