package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.UpdatePipeline;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonValue;

/**
 * A parsed update: a replacement document, the operator form or an aggregation pipeline, as the {@code u} field of
 * MongoDB's {@code update} command (and findAndModify's {@code update}). Immutable and thread-safe.
 *
 * <p>Shapes:
 * <ul>
 *   <li>replacement: {@code {<field>: <value>, ...}} (no top-level {@code $} key; {@code {}} empties the
 *       document); the original {@code _id} is kept;</li>
 *   <li>operators: {@code {$set: {<path>: <value>}, $unset: {<path>: ""}, $inc: {<path>: <number>}, ...}}, see
 *       {@link UpdateTree} for the operators and path rules; {@code $setOnInsert} applies only in
 *       {@link #applyForUpsert};</li>
 *   <li>pipeline: {@code [{$set: ...}, {$unset: ...}, {$project: ...}, {$replaceWith: ...}, ...]}
 *       ({@link UpdatePipeline}, MongoDB manual "Updates with Aggregation Pipeline"): the result replaces the
 *       document as a replacement would, keeping the {@code _id} when the result has none.</li>
 * </ul>
 * An array is a pipeline; a document's form is decided by its first key, as MongoDB does.
 *
 * <p>Every stored result has a valid {@code _id} ({@link IdField}). Errors ({@link CommandException}):
 * FailedToParse (9) for an unknown modifier or a plain field in the operator form ("Unknown modifier: b"), for
 * {@code arrayFilters} with a replacement or a pipeline, for a {@code u} that is neither a document nor an array;
 * DollarPrefixedFieldName (52) for a {@code $} field in a replacement or inside an {@code _id} document;
 * InvalidIdField (53) for an array, regex or undefined {@code _id}; InvalidOptions (72) for a pipeline stage other
 * than those above; ConflictingUpdateOperators (40); TypeMismatch (14); PathNotViable (28); ImmutableField (66) when
 * the {@code _id} would change; EmptyFieldName (56).
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
        return parse(u, arrayFilters, Collation.SIMPLE);
    }

    private static Update parse(BsonDocument u, List<? extends BsonValue> arrayFilters, Collation collation) {
        if (!u.isEmpty() && u.getFirstKey().startsWith("$")) {
            ArrayFilters filters = arrayFilters.isEmpty() ? ArrayFilters.NONE : ArrayFilters.parse(arrayFilters, collation);
            return new Update(new Operators(UpdateTree.parse(Values.copy(u), filters, collation)));
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

    /**
     * Parses a statement's {@code u}: an array is a pipeline whose expressions see the command's {@code variables}
     * ({@code $$NOW}, {@code let}), a document a replacement or the operator form. The statement's {@code collation}
     * is that of its {@code arrayFilters} and of the operators that compare values ({@code $min $max $addToSet
     * $pull $pullAll}, {@code $push}'s {@code $sort}), as MongoDB's update driver passes the collator to them
     * (MongoDB manual, "Collation"), and of a pipeline's stages and expressions. The arguments are not
     * retained.
     *
     * @throws CommandException as listed on the class
     */
    public static Update parse(BsonValue u, List<? extends BsonValue> arrayFilters, CommandVariables variables, Collation collation) {
        if (u.isArray()) {
            if (!arrayFilters.isEmpty()) {
                throw new CommandException(ErrorCode.FailedToParse, "arrayFilters may not be specified for pipeline-style updates");
            }
            return new Update(new PipelineForm(UpdatePipeline.parse(u.asArray(), variables.withCollation(collation))));
        }
        if (!u.isDocument()) {
            throw new CommandException(ErrorCode.FailedToParse, "Update argument must be either an object or an array, not "
                    + TypeNames.of(u.getBsonType()));
        }
        return parse(u.asDocument(), arrayFilters, collation);
    }

    /** Whether this is a replacement document rather than the operator or pipeline form. */
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
     *     {@code _id}; InvalidIdField (53) or DollarPrefixedFieldName (52) when the resulting {@code _id} is not
     *     valid ({@link IdField})
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
        if (id != null) {
            IdField.requireValid(id);
        }
    }

    /** The three forms; each returns a new document and leaves its argument untouched. */
    private sealed interface Form permits Replacement, Operators, PipelineForm {
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

    /** The pipeline's result, with the original {@code _id} first when the result has none (replacement rules). */
    private record PipelineForm(UpdatePipeline pipeline) implements Form {
        @Override
        public BsonDocument apply(BsonDocument doc, boolean inserting, OptionalInt matchedPosition) {
            BsonDocument result = pipeline.apply(doc);
            if (doc.containsKey("_id") && !result.containsKey("_id")) {
                BsonDocument withId = new BsonDocument("_id", doc.get("_id"));
                withId.putAll(result);
                result = withId;
            }
            requireValidId(result);
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
