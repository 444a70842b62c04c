package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.HashMap;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The variables an {@link Expression} sees: {@code ROOT} (the document entering the stage), {@code CURRENT}
 * (the same, the base of {@code "$field"} paths), the command's variables ({@link CommandVariables}: {@code NOW}
 * and its {@code let}) and those bound by {@code $map}/{@code $filter} ({@code this} or the {@code as} name).
 * A scope also carries the command's collation, under which comparison operators compare strings ({@link #collation()}).
 * Immutable: {@link #with} returns a new scope.
 */
public final class Variables {
    private final Map<String, BsonValue> values;
    private final boolean hasDocument;
    private final Collation collation;

    private Variables(Map<String, BsonValue> values, boolean hasDocument, Collation collation) {
        this.values = values;
        this.hasDocument = hasDocument;
        this.collation = collation;
    }

    /**
     * The scope of a stage evaluating {@code root} without command variables: {@code $$ROOT} and {@code $$CURRENT}
     * are the document. Commands use {@link CommandVariables#scope} instead.
     */
    public static Variables of(BsonDocument root) {
        return document(Map.of(), root, Collation.SIMPLE);
    }

    /** {@code globals} plus {@code ROOT} and {@code CURRENT} bound to {@code root}, comparing strings under {@code collation}. */
    static Variables document(Map<String, BsonValue> globals, BsonDocument root, Collation collation) {
        Map<String, BsonValue> values = new HashMap<>(globals);
        values.put("ROOT", root);
        values.put("CURRENT", root);
        return new Variables(values, true, collation);
    }

    /**
     * A scope with no document, where reading {@code $$ROOT}, {@code $$CURRENT} or a field path fails: the scope a
     * command's {@code let} values are evaluated in, before any document is read.
     */
    static Variables documentless(Map<String, BsonValue> globals, Collation collation) {
        return new Variables(Map.copyOf(globals), false, collation);
    }

    /** This scope with {@code name} bound to {@code value} (shadowing an outer binding). */
    public Variables with(String name, BsonValue value) {
        Map<String, BsonValue> copy = new HashMap<>(values);
        copy.put(name, value);
        return new Variables(copy, hasDocument, collation);
    }

    /** The collation string comparisons use in this scope (the command's; simple by default). */
    public Collation collation() {
        return collation;
    }

    /**
     * The value of {@code name}; null (missing) for a variable bound to missing and for {@code $$REMOVE}, whose value is
     * missing by definition.
     *
     * @throws CommandException BadValue (2) for {@code ROOT} or {@code CURRENT} in a {@link #documentless} scope
     *     (4890500 in MongoDB); Location17276 "Use of undefined variable" for a name nothing binds (MongoDB refuses it
     *     when it parses the expression; here it is refused when the expression first reads it)
     */
    @Nullable BsonValue get(String name) {
        if (!hasDocument && (name.equals("ROOT") || name.equals("CURRENT"))) {
            throw new CommandException(ErrorCode.BadValue, "Command let Expression tried to access a field, but this is"
                    + " not allowed because command let expressions run before the query examines any documents.");
        }
        BsonValue value = values.get(name);
        if (value == null && !values.containsKey(name) && !name.equals("REMOVE")) {
            throw new CommandException(ErrorCode.Location17276, "Use of undefined variable: " + name);
        }
        return value;
    }
}
