package dev.shardstore.engine.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonValue;

/**
 * A parsed update: either a replacement document or the operator form, as the {@code u} field of
 * MongoDB's {@code update} command. Immutable and thread-safe.
 *
 * <p>Shapes:
 * <ul>
 *   <li>replacement: {@code {<field>: <value>, ...}} (no top-level {@code $} key; {@code {}} empties the
 *       document); the original {@code _id} is kept;</li>
 *   <li>operators: {@code {$set: {<path>: <value>}, $unset: {<path>: ""}, $inc: {<path>: <number>}, ...}}, see
 *       {@link UpdateTree} for the operators and path rules; {@code $setOnInsert} applies only in
 *       {@link #applyForUpsert}.</li>
 * </ul>
 * The form is decided by the first key, as MongoDB does.
 *
 * <p>Errors ({@link CommandException}): FailedToParse (9) for an unknown modifier or a plain field in the
 * operator form ("Unknown modifier: b"); DollarPrefixedFieldName (52) for a {@code $} field in a
 * replacement; InvalidIdField (53) for an array {@code _id}; ConflictingUpdateOperators (40); TypeMismatch
 * (14); PathNotViable (28); ImmutableField (66) when the {@code _id} would change; EmptyFieldName (56).
 */
public final class Update {
    private final Form form;

    private Update(Form form) {
        this.form = form;
    }

    /**
     * Parses {@code u}; the argument is not retained.
     *
     * @throws CommandException as listed on the class, for everything detectable without a document
     */
    public static Update parse(BsonDocument u) {
        return parse(u, List.of());
    }

    /**
     * Parses {@code u} with the update statement's {@code arrayFilters} (see {@link ArrayFilters}); the arguments
     * are not retained.
     *
     * @throws CommandException as listed on the class; the array filters' errors; FailedToParse (9) for array
     *     filters with a replacement
     */
    public static Update parse(BsonDocument u, List<? extends BsonValue> arrayFilters) {
        if (!u.isEmpty() && u.getFirstKey().startsWith("$")) {
            ArrayFilters filters = arrayFilters.isEmpty() ? ArrayFilters.NONE : ArrayFilters.parse(arrayFilters);
            return new Update(new Operators(UpdateTree.parse(Values.copy(u), filters)));
        }
        if (!arrayFilters.isEmpty()) {
            throw new CommandException(ErrorCode.FailedToParse, "arrayFilters may not be specified for replacement-style updates");
        }
        for (String field : u.keySet()) {
            if (field.startsWith("$")) {
                throw new CommandException(ErrorCode.DollarPrefixedFieldName, "The dollar ($) prefixed field '" + field
                        + "' in '" + field + "' is not allowed in the context of an update's replacement document.");
            }
        }
        BsonDocument replacement = Values.copy(u);
        requireValidId(replacement);
        return new Update(new Replacement(replacement));
    }

    /** Whether this is a replacement document rather than the operator form. */
    public boolean isReplacement() {
        return form instanceof Replacement;
    }

    /**
     * The document after the update; {@code doc} is not modified.
     *
     * @throws CommandException ImmutableField (66) when {@code _id} would change; TypeMismatch (14) for
     *     {@code $inc} on a non-number; PathNotViable (28) for a path through a scalar
     */
    public BsonDocument apply(BsonDocument doc) {
        return apply(doc, OptionalInt.empty());
    }

    /**
     * As {@link #apply(BsonDocument)}, with the array position by which the query matched {@code doc}
     * ({@link Filter#matchedPosition}) for the positional {@code $}.
     *
     * @throws CommandException as {@link #apply(BsonDocument)}; BadValue (2) when the update uses {@code $} and
     *     there is no position
     */
    public BsonDocument apply(BsonDocument doc, OptionalInt matchedPosition) {
        return apply(doc, false, matchedPosition);
    }

    private BsonDocument apply(BsonDocument doc, boolean inserting, OptionalInt matchedPosition) {
        BsonDocument result = form.apply(doc, inserting, matchedPosition);
        requireSameId(doc, result);
        return result;
    }

    /**
     * The document an upsert inserts: the update applied to {@code seed} (see {@link #seedFromEqualities});
     * a replacement keeps only the seed's {@code _id}. The result has {@code _id} first, a new ObjectId when
     * neither the seed nor the update supplies one. {@code seed} is not modified.
     *
     * @throws CommandException as {@link #apply}; ImmutableField (66) when the update changes the query's
     *     {@code _id}; InvalidIdField (53) when the resulting {@code _id} is an array
     */
    public BsonDocument applyForUpsert(BsonDocument seed) {
        BsonDocument result = apply(seed, true, OptionalInt.empty());
        requireValidId(result);
        if (!result.containsKey("_id")) {
            result.put("_id", new BsonObjectId());
        }
        return idFirst(result);
    }

    /**
     * The base document of an upsert from a filter's {@link Filter#equalities()}: dotted paths become nested
     * documents ({@code {"a.b": 1}} → {@code {a: {b: 1}}}), fields in path order with {@code _id} first, as
     * MongoDB's {@code addEqualitiesToDoc}.
     *
     * @throws CommandException BadValue when one path is a prefix of another ("cannot infer query fields to
     *     set, both paths 'a' and 'a.b' are matched"; NotSingleValueField in MongoDB)
     */
    public static BsonDocument seedFromEqualities(Map<String, BsonValue> equalities) {
        TreeMap<String, BsonValue> byPath = new TreeMap<>(equalities);
        for (String path : byPath.keySet()) {
            for (int dot = path.indexOf('.'); dot >= 0; dot = path.indexOf('.', dot + 1)) {
                String prefix = path.substring(0, dot);
                if (byPath.containsKey(prefix)) {
                    throw new CommandException(ErrorCode.BadValue, "cannot infer query fields to set, both paths '"
                            + prefix + "' and '" + path + "' are matched");
                }
            }
        }
        BsonDocument seed = new BsonDocument();
        byPath.forEach((path, value) -> putPath(seed, Paths.split(path), Values.copy(value)));
        return idFirst(seed);
    }

    /**
     * Whether an update changed the document: false when {@code after} has the same bytes as {@code before}
     * (so {@code $set} to the current value is not a modification, but {@code 1} → {@code 1.0} is). This is
     * the test behind {@code nModified}.
     */
    public static boolean changes(BsonDocument before, BsonDocument after) {
        return !Values.identical(before, after);
    }

    private static void putPath(BsonDocument into, List<String> components, BsonValue value) {
        BsonDocument current = into;
        for (String component : components.subList(0, components.size() - 1)) {
            if (!current.containsKey(component)) {
                current.put(component, new BsonDocument());
            }
            current = current.getDocument(component);
        }
        current.put(components.get(components.size() - 1), value);
    }

    /** {@code doc} itself when it has no {@code _id} or has it first, else a copy with {@code _id} moved first. */
    private static BsonDocument idFirst(BsonDocument doc) {
        if (!doc.containsKey("_id") || doc.getFirstKey().equals("_id")) {
            return doc;
        }
        BsonDocument ordered = new BsonDocument("_id", doc.get("_id"));
        doc.forEach((name, value) -> ordered.putIfAbsent(name, value));
        return ordered;
    }

    private static void requireSameId(BsonDocument before, BsonDocument after) {
        BsonValue id = before.get("_id");
        BsonValue newId = after.get("_id");
        if (id != null && (newId == null || !Values.identical(id, newId))) {
            throw new CommandException(ErrorCode.ImmutableField, "After applying the update, the (immutable) field"
                    + " '_id' was found to have been altered to " + (newId == null ? "nothing" : Values.element("_id", newId)));
        }
    }

    private static void requireValidId(BsonDocument doc) {
        BsonValue id = doc.get("_id");
        if (id != null && id.isArray()) {
            throw new CommandException(ErrorCode.InvalidIdField, "The '_id' value cannot be of type array");
        }
    }

    /** The two forms; each returns a new document and leaves its argument untouched. */
    private sealed interface Form permits Replacement, Operators {
        /** {@code inserting}: the insert side of an upsert. */
        BsonDocument apply(BsonDocument doc, boolean inserting, OptionalInt matchedPosition);
    }

    private record Replacement(BsonDocument replacement) implements Form {
        @Override
        public BsonDocument apply(BsonDocument doc, boolean inserting, OptionalInt matchedPosition) {
            BsonDocument result = new BsonDocument();
            if (doc.containsKey("_id") && !replacement.containsKey("_id")) {
                result.put("_id", Values.copy(doc.get("_id")));
            }
            replacement.forEach((name, value) -> result.put(name, Values.copy(value)));
            return result;
        }
    }

    private record Operators(UpdateTree tree) implements Form {
        @Override
        public BsonDocument apply(BsonDocument doc, boolean inserting, OptionalInt matchedPosition) {
            BsonDocument result = Values.copy(doc);
            tree.applyTo(new UpdateContext(result, inserting, Instant.now(), matchedPosition));
            return result;
        }
    }
}
