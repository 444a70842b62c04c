package dev.shardstore.engine.aggregate;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.spill.MemoryLimits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Parses pipeline stages through the stage table. Stages that MongoDB defines as aliases
 * ({@code $set}, {@code $replaceWith}, {@code $unset}) or as sugar ({@code $count}, {@code $sortByCount},
 * {@code $bucket}) parse into the stages they stand for, as MongoDB's own desugaring does.
 *
 * <p>Errors: Location40324 {@code "Unrecognized pipeline stage name: '$foo'"}; NotImplemented (238) for a MongoDB stage
 * this engine does not run ({@code $bucketAuto}, {@code $setWindowFields}, {@code $graphLookup}, ...); BadValue (2) for a stage that
 * is not a one-field document ({@code "A pipeline stage specification object must contain exactly one
 * field."}, 40323 in MongoDB); TypeMismatch (14) for a pipeline that is not an array of documents.
 */
final class PipelineParser {
    private static final Map<String, StageParser> STAGES = Map.ofEntries(
            Map.entry("$match", MatchStage::parse),
            Map.entry("$project", (arg, p) -> FieldsStage.project(document("$project", arg), p.variables())),
            Map.entry("$addFields", (arg, p) -> FieldsStage.addFields(document("$addFields", arg), p.variables())),
            Map.entry("$set", (arg, p) -> FieldsStage.addFields(document("$set", arg), p.variables())),
            Map.entry("$unset", (arg, p) -> FieldsStage.unset(arg, p.variables())),
            Map.entry("$group", (arg, p) -> GroupStage.parse(document("$group", arg), p.variables(), p.limits())),
            Map.entry("$sort", (arg, p) -> SortStage.parse(document("$sort", arg), p.variables().collation(), p.limits())),
            Map.entry("$skip", (arg, p) -> SliceStage.skip(arg)),
            Map.entry("$limit", (arg, p) -> SliceStage.limit(arg)),
            Map.entry("$unwind", (arg, p) -> UnwindStage.parse(arg)),
            Map.entry("$count", (arg, p) -> Desugared.count(arg, p)),
            Map.entry("$sortByCount", (arg, p) -> Desugared.sortByCount(arg, p)),
            Map.entry("$bucket", (arg, p) -> Desugared.bucket(document("$bucket", arg), p)),
            Map.entry("$replaceRoot", (arg, p) -> ReplaceRootStage.parse(document("$replaceRoot", arg), p.variables())),
            Map.entry("$replaceWith", (arg, p) -> ReplaceRootStage.of(arg, p.variables())),
            Map.entry("$facet", (arg, p) -> FacetStage.parse(document("$facet", arg), p)),
            Map.entry("$sample", (arg, p) -> SampleStage.parse(document("$sample", arg), p.limits())),
            Map.entry("$lookup", (arg, p) -> LookupStage.parse(document("$lookup", arg), p.source(), p.variables())),
            Map.entry(UnpackBucketStage.NAME, (arg, p) -> UnpackBucketStage.parse(document(UnpackBucketStage.NAME, arg))));

    /** MongoDB's stages that this engine does not run: refused as such (238), not as unknown names. */
    private static final Set<String> NOT_IMPLEMENTED = Set.of("$bucketAuto", "$setWindowFields", "$graphLookup", "$densify", "$fill",
            "$geoNear", "$redact", "$unionWith");

    private final CollectionSource source;
    private final CommandVariables variables;
    private final MemoryLimits limits;
    private boolean readsCollections;

    /**
     * @param source    where {@code $lookup} reads
     * @param variables the command's variables every expression of the pipeline sees
     * @param limits    the budgets of its blocking stages
     */
    PipelineParser(CollectionSource source, CommandVariables variables, MemoryLimits limits) {
        this.source = source;
        this.variables = variables;
        this.limits = limits;
    }

    /** The budgets of the blocking stages and whether they may spill. */
    MemoryLimits limits() {
        return limits;
    }

    /** The command's variables ({@code $$NOW}, {@code let}) and its collation, which every stage compares strings under. */
    CommandVariables variables() {
        return variables;
    }

    /** Where {@code $lookup} reads; a stage that asks reads other collections while the pipeline's output is read. */
    CollectionSource source() {
        readsCollections = true;
        return source;
    }

    /** Whether a stage parsed so far reads other collections ({@link #source()}). */
    boolean readsCollections() {
        return readsCollections;
    }

    /** Parses a pipeline: an array of one-field stage documents. */
    List<Stage> parse(BsonValue pipeline) {
        if (!pipeline.isArray()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'pipeline' option must be specified as an array");
        }
        List<Stage> stages = new ArrayList<>();
        for (BsonValue stage : pipeline.asArray()) {
            stages.add(parseStage(stage));
        }
        return stages;
    }

    /** Parses the stages of a pipeline given as documents (as desugaring builds them). */
    List<Stage> parse(BsonDocument... stages) {
        return parse(new BsonArray(List.of(stages)));
    }

    private Stage parseStage(BsonValue spec) {
        if (!spec.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, "Each element of the 'pipeline' array must be an object");
        }
        BsonDocument stage = spec.asDocument();
        if (stage.size() != 1) {
            throw new CommandException(ErrorCode.BadValue,
                    "A pipeline stage specification object must contain exactly one field.");
        }
        String name = stage.getFirstKey();
        StageParser parser = STAGES.get(name);
        if (parser == null && NOT_IMPLEMENTED.contains(name)) {
            throw new CommandException(ErrorCode.NotImplemented, "the " + name + " stage is not implemented yet");
        }
        if (parser == null) {
            throw new CommandException(ErrorCode.Location40324, "Unrecognized pipeline stage name: '" + name + "'");
        }
        return parser.parse(stage.values().iterator().next(), this); // the one field's value
    }

    /** The argument of {@code stage} as a document. */
    static BsonDocument document(String stage, BsonValue argument) {
        if (!argument.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, "the " + stage + " stage specification must be an object");
        }
        return argument.asDocument();
    }
}
