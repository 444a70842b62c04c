package dev.shardstore.engine.aggregate.expression;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The variables one command defines for every expression it evaluates — in {@code $expr}, in pipeline stages and
 * in pipeline-style updates (MongoDB manual, "Variables in Aggregation Expressions" and the {@code let} option of
 * find, aggregate, update, delete and findAndModify): the system variable {@code $$NOW} (one date for the whole
 * command, so every document sees the same value) and the command's {@code let: {<name>: <expression>, ...}}, used
 * as {@code $$<name>}. {@code $$ROOT} and {@code $$CURRENT} are bound per document by {@link #scope}.
 * Immutable and thread-safe.
 *
 * <p>It is also the command's evaluation context: the {@link #collation()} every string comparison of its expressions,
 * {@code $match}es, {@code $sort}s and {@code $group} keys uses (MongoDB manual, "Collation": an aggregate's collation
 * applies to the whole pipeline), the simple collation unless {@link #ofCommand} or {@link #withCollation} gives one.
 *
 * <p>{@code let} rules (MongoDB's {@code variableValidation::validateNameForUserWrite} and
 * {@code Variables::seedVariablesWithLetParameters}): a name starts with a lowercase ASCII letter or a non-ASCII
 * character and goes on with ASCII letters, digits, {@code _} or non-ASCII characters (so no user variable can
 * shadow {@code NOW}, {@code ROOT} or {@code CURRENT}); each value is an expression evaluated once, in order, before
 * any document is read — it may use {@code $$NOW} and the variables defined before it, never a field.
 *
 * <p>Errors ({@link CommandException}, each naming the field, e.g. {@code let.Total}): TypeMismatch (14) when
 * {@code let} is not a document; BadValue (2) for an empty name, a name with an invalid first or later character
 * (16866/16867/16868 in MongoDB), a value reading a field or {@code $$ROOT} (4890500 in MongoDB), and the value
 * expression's own errors.
 */
public final class CommandVariables {
    private final Map<String, BsonValue> values;
    private final Collation collation;

    private CommandVariables(Map<String, BsonValue> values, Collation collation) {
        this.values = Map.copyOf(values);
        this.collation = collation;
    }

    /** The variables of a command without {@code let}: {@code $$NOW} only, taken now. */
    public static CommandVariables withoutLet() {
        return parse(null, "let");
    }

    /**
     * The variables of a command whose {@code let} field is {@code let} (null or BSON null when absent).
     *
     * @param field the name of the field in errors ({@code let}, {@code updates.0.c})
     * @throws CommandException as listed on the class
     */
    public static CommandVariables parse(@Nullable BsonValue let, String field) {
        return parse(let, field, Collation.SIMPLE);
    }

    /**
     * The variables and collation of a command: its {@code let} (as {@link #parse(BsonValue, String)}) and its
     * {@code collation} field, parsed as {@code <command name>.collation} (e.g. {@code aggregate.collation}); the
     * {@code let} values are evaluated under that collation.
     *
     * @throws CommandException as {@link #parse(BsonValue, String)} and {@link Collation#parse}
     */
    public static CommandVariables ofCommand(BsonDocument command) {
        return ofCommand(command, Collation.parse(command.getFirstKey() + ".collation", command.get("collation")));
    }

    /**
     * The variables of a command that runs under {@code collation}, which the caller resolved (on a shard: the
     * command's own or its collection's default); the {@code let} values are evaluated under it.
     *
     * @throws CommandException as {@link #parse(BsonValue, String)}
     */
    public static CommandVariables ofCommand(BsonDocument command, Collation collation) {
        return parse(command.get("let"), "let", collation);
    }

    private static CommandVariables parse(@Nullable BsonValue let, String field, Collation collation) {
        Map<String, BsonValue> values = new LinkedHashMap<>();
        values.put("NOW", new BsonDateTime(Instant.now().toEpochMilli()));
        if (let == null || let.isNull()) {
            return new CommandVariables(values, collation);
        }
        if (!let.isDocument()) {
            throw notDocument(field, let);
        }
        for (Map.Entry<String, BsonValue> entry : let.asDocument().entrySet()) {
            String name = entry.getKey();
            String path = field + "." + name;
            validateName(name, path);
            try {
                BsonValue value = ExpressionParser.INSTANCE.parse(entry.getValue()).evaluate(Variables.documentless(values, collation));
                values.put(name, ExpressionParser.orNull(value));
            } catch (CommandException e) {
                throw new CommandException(e.code(), "'" + path + "': " + e.getMessage());
            }
        }
        return new CommandVariables(values, collation);
    }

    /** These variables with string comparisons under {@code collation} (a find's filter gives its {@code $expr} its own). */
    public CommandVariables withCollation(Collation collation) {
        return collation.equals(this.collation) ? this : new CommandVariables(values, collation);
    }

    /** The collation every string comparison of the command uses; {@link Collation#SIMPLE} unless one was given. */
    public Collation collation() {
        return collation;
    }

    /**
     * These variables plus an update statement's constants {@code c: {<name>: <value>, ...}} (MongoDB manual,
     * "update": usable only with a pipeline {@code u}), taken literally — not evaluated — and named by the same
     * rules as {@code let}; a constant shadows a {@code let} variable of the same name.
     *
     * @param constants the {@code c} field, null or BSON null when absent
     * @param field the name of the field in errors ({@code updates.0.c})
     * @throws CommandException TypeMismatch (14) when it is not a document; BadValue (2) for a bad name
     */
    public CommandVariables withConstants(@Nullable BsonValue constants, String field) {
        if (constants == null || constants.isNull()) {
            return this;
        }
        if (!constants.isDocument()) {
            throw notDocument(field, constants);
        }
        Map<String, BsonValue> all = new LinkedHashMap<>(values);
        constants.asDocument().forEach((name, value) -> {
            validateName(name, field + "." + name);
            all.put(name, value);
        });
        return new CommandVariables(all, collation);
    }

    /** The scope of one document: these variables plus {@code $$ROOT} and {@code $$CURRENT} bound to {@code root}. */
    public Variables scope(BsonDocument root) {
        return Variables.document(values, root, collation);
    }

    private static CommandException notDocument(String field, BsonValue value) {
        return new CommandException(ErrorCode.TypeMismatch, "'" + field + "' must be a document, not "
                + value.getBsonType().name().toLowerCase());
    }

    private static void validateName(String name, String path) {
        if (name.isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "'" + path + "': empty variable names are not allowed");
        }
        char first = name.charAt(0);
        if (!(first >= 'a' && first <= 'z' || first > 127)) {
            throw new CommandException(ErrorCode.BadValue, "'" + path + "': '" + name
                    + "' starts with an invalid character for a user variable name");
        }
        for (int i = 1; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128 || c == '_' || c > 127)) {
                throw new CommandException(ErrorCode.BadValue, "'" + path + "': '" + name
                        + "' contains an invalid character for a variable name: '" + c + "'");
            }
        }
    }
}
