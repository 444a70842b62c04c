package dev.shardstore.router.query;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The last stage of an aggregate that writes: {@code $out} or {@code $merge} (MongoDB manual: the aggregation stages of the
 * same names; MongoDB's {@code DocumentSourceOut} and {@code DocumentSourceMerge}).
 *
 * <p>Shapes: {@code {$out: "coll"}} or {@code {$out: {db, coll}}} ({@code timeseries} refused, NotImplemented);
 * {@code {$merge: "coll"}} or {@code {$merge: {into: "coll" | {db, coll}, on?: "f" | ["f", ...], let?, whenMatched?:
 * "replace" | "keepExisting" | "merge" | "fail" | [pipeline], whenNotMatched?: "insert" | "discard" | "fail"}}}.
 * Defaults are MongoDB's: {@code whenMatched: "merge"}, {@code whenNotMatched: "insert"}, {@code on} the target's
 * {@code _id} (shard key + {@code _id} for a sharded target, chosen by the writer).
 *
 * @param name           {@code "$out"} or {@code "$merge"}
 * @param target         where the documents go
 * @param on             the {@code on} fields as given, or null for the default
 * @param let            {@code $merge}'s {@code let}, or null
 * @param whenMatched    the mode ({@code "pipeline"} when {@link #matchedPipeline} is set); null for {@code $out}
 * @param matchedPipeline the update pipeline of {@code whenMatched: [...]}, or null
 * @param whenNotMatched the mode; null for {@code $out}
 */
public record OutputStage(String name, Namespace target, @Nullable List<String> on, @Nullable BsonDocument let,
        @Nullable String whenMatched, @Nullable BsonArray matchedPipeline, @Nullable String whenNotMatched) {
    private static final Set<String> NAMES = Set.of("$out", "$merge");
    private static final Set<String> WHEN_MATCHED = Set.of("replace", "keepExisting", "merge", "fail");
    private static final Set<String> WHEN_NOT_MATCHED = Set.of("insert", "discard", "fail");

    /** Whether {@code pipeline} ends with {@code $out} or {@code $merge} (after {@link #checkPlacement}). */
    public static boolean endsWithOutput(BsonArray pipeline) {
        return !pipeline.isEmpty() && pipeline.get(pipeline.size() - 1).isDocument()
                && NAMES.contains(firstKey(pipeline.get(pipeline.size() - 1).asDocument()));
    }

    /** {@code pipeline} without its last stage. */
    public static BsonArray without(BsonArray pipeline) {
        return new BsonArray(new ArrayList<>(pipeline.subList(0, pipeline.size() - 1)));
    }

    /**
     * Refuses {@code $out}/{@code $merge} anywhere but last: Location40601 "{@code $out} can only be the final stage in
     * the pipeline"; inside a {@code $facet}, Location40600; inside a {@code $lookup}'s pipeline, Location51047.
     */
    public static void checkPlacement(BsonArray pipeline) {
        for (int i = 0; i < pipeline.size(); i++) {
            if (!pipeline.get(i).isDocument() || pipeline.get(i).asDocument().isEmpty()) {
                continue; // the engine's parser names that error
            }
            BsonDocument stage = pipeline.get(i).asDocument();
            String name = firstKey(stage);
            if (NAMES.contains(name) && i != pipeline.size() - 1) {
                throw new CommandException(ErrorCode.Location40601, name + " can only be the final stage in the pipeline");
            }
            if (name.equals("$facet") && stage.get(name) instanceof BsonDocument facets) {
                for (Map.Entry<String, BsonValue> facet : facets.entrySet()) {
                    nested(facet.getValue(), ErrorCode.Location40600, " is not allowed to be used within a $facet stage");
                }
            }
            if (name.equals("$lookup") && stage.get(name) instanceof BsonDocument lookup) {
                nested(lookup.get("pipeline"), ErrorCode.Location51047, " is not allowed within a $lookup's sub-pipeline");
            }
        }
    }

    private static void nested(@Nullable BsonValue sub, ErrorCode code, String message) {
        if (sub == null || !sub.isArray()) {
            return;
        }
        for (BsonValue stage : sub.asArray()) {
            if (stage.isDocument() && !stage.asDocument().isEmpty() && NAMES.contains(firstKey(stage.asDocument()))) {
                throw new CommandException(code, firstKey(stage.asDocument()) + message);
            }
        }
        checkPlacement(sub.asArray());
    }

    /**
     * Parses the last stage of {@code pipeline} (which {@link #endsWithOutput}) run on database {@code db}.
     *
     * @throws CommandException TypeMismatch/FailedToParse naming the field; NotImplemented for {@code $out.timeseries};
     *                          Location51181 for an unsupported whenMatched/whenNotMatched pair; InvalidNamespace
     */
    public static OutputStage parse(String db, BsonArray pipeline) {
        BsonDocument stage = pipeline.get(pipeline.size() - 1).asDocument();
        String name = firstKey(stage);
        // the stage's first key is $out or $merge (endsWithOutput), so the stage has that field
        BsonValue spec = Objects.requireNonNull(stage.get(name), name);
        if (name.equals("$out")) {
            return new OutputStage(name, target(db, spec, "$out", "coll"), null, null, null, null, null);
        }
        if (spec.isString()) {
            return new OutputStage(name, new Namespace(db, spec.asString().getValue()), null, null, "merge", null, "insert");
        }
        BsonDocument merge = document(spec, "$merge");
        for (String field : merge.keySet()) {
            if (!Set.of("into", "on", "let", "whenMatched", "whenNotMatched").contains(field)) {
                throw new CommandException(ErrorCode.Location40415, "BSON field '$merge." + field + "' is an unknown field.");
            }
        }
        if (!merge.containsKey("into")) {
            throw new CommandException(ErrorCode.Location40414, "BSON field '$merge.into' is missing but a required field");
        }
        BsonValue matched = merge.get("whenMatched", new BsonString("merge"));
        BsonArray pipelineMode = matched.isArray() ? matched.asArray() : null;
        String whenMatched = pipelineMode != null ? "pipeline" : string(matched, "$merge.whenMatched", WHEN_MATCHED);
        String whenNotMatched = string(merge.get("whenNotMatched", new BsonString("insert")), "$merge.whenNotMatched", WHEN_NOT_MATCHED);
        if ((whenMatched.equals("keepExisting") || whenMatched.equals("fail")) && !whenNotMatched.equals("insert")) {
            throw new CommandException(ErrorCode.Location51181, "Combination of {whenMatched: " + whenMatched + ", whenNotMatched: "
                    + whenNotMatched + "} is not supported");
        }
        BsonDocument let = merge.containsKey("let") ? document(merge.get("let"), "$merge.let") : null;
        if (let != null && pipelineMode == null) {
            throw new CommandException(ErrorCode.BadValue, "Cannot use 'let' variables with 'whenMatched: " + whenMatched + "' mode");
        }
        return new OutputStage(name, target(db, merge.get("into"), "$merge.into", "coll"), on(merge.get("on")), let, whenMatched,
                pipelineMode, whenNotMatched);
    }

    private static @Nullable List<String> on(@Nullable BsonValue on) {
        if (on == null) {
            return null;
        }
        List<String> fields = new ArrayList<>();
        if (on.isString()) {
            fields.add(on.asString().getValue());
        } else if (on.isArray() && !on.asArray().isEmpty()) {
            for (BsonValue f : on.asArray()) {
                if (!f.isString()) {
                    throw new CommandException(ErrorCode.TypeMismatch, "$merge.on array elements must be strings");
                }
                fields.add(f.asString().getValue());
            }
        } else {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field '$merge.on' must be a string or a non-empty array of strings");
        }
        return List.copyOf(fields);
    }

    private static Namespace target(String db, BsonValue spec, String path, String collField) {
        if (spec.isString()) {
            return new Namespace(db, spec.asString().getValue());
        }
        BsonDocument doc = document(spec, path);
        if (doc.containsKey("timeseries")) {
            throw new CommandException(ErrorCode.NotImplemented, path + ".timeseries: writing a time-series collection with $out is not implemented");
        }
        for (String field : doc.keySet()) {
            if (!field.equals("db") && !field.equals(collField)) {
                throw new CommandException(ErrorCode.Location40415, "BSON field '" + path + "." + field + "' is an unknown field.");
            }
        }
        if (!doc.isString(collField)) {
            throw new CommandException(ErrorCode.Location40414, "BSON field '" + path + "." + collField + "' is missing but a required field");
        }
        String targetDb = doc.containsKey("db") ? string(doc.get("db"), path + ".db", null) : db;
        return new Namespace(targetDb, doc.getString(collField).getValue());
    }

    private static String string(BsonValue value, String path, @Nullable Set<String> allowed) {
        if (!value.isString()) {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field '" + path + "' is the wrong type '" + value.getBsonType() + "', expected type 'string'");
        }
        String s = value.asString().getValue();
        if (allowed != null && !allowed.contains(s)) {
            throw new CommandException(ErrorCode.BadValue, "Enumeration value '" + s + "' for field '" + path + "' is not a valid value.");
        }
        return s;
    }

    private static BsonDocument document(BsonValue value, String path) {
        if (!value.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, path + " must be a string or an object");
        }
        return value.asDocument();
    }

    private static String firstKey(BsonDocument d) {
        return d.isEmpty() ? "" : d.getFirstKey();
    }
}
