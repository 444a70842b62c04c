package dev.shardstore.router.query;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.DatabaseNames;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.aggregate.expression.ExpressionParser;
import dev.shardstore.router.cursor.DocumentStream;
import dev.shardstore.router.cursor.RouterCursorManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * The database-level aggregate, {@code {aggregate: 1, pipeline: [{$documents: <array>}, ...], cursor: {batchSize?},
 * let?}} → a cursor reply on {@code <db>.$cmd.aggregate}, run on the router alone: no shard holds the input. The
 * {@code $documents} argument is an expression (a literal array, or one using {@code let} variables and
 * {@code $$NOW}) that must evaluate to an array of documents; every later stage is the engine's, with {@code $lookup}
 * reading the database's collections through the router. MongoDB manual, "$documents".
 *
 * <p>Refusals, MongoDB's: an empty pipeline, or a first stage that needs a collection, is InvalidNamespace (73)
 * ("{aggregate: 1} is not valid for '$match'; a collection is required."); MongoDB's other collectionless first stage
 * {@code $changeStream} is NotImplemented (238) naming the stage ({@code $currentOp} is {@link ClusterCurrentOp}'s, the
 * session stages are {@code router.session.SessionStages}); a {@code $documents} value that is not an array of documents is TypeMismatch (14).
 */
@Component
public class DatabaseAggregate {
    /** MongoDB's collectionless first stages this router does not have. */
    private static final Set<String> OTHER_COLLECTIONLESS_STAGES = Set.of("$changeStream");

    private final ShardedReads reads;
    private final RouterCursorManager cursors;

    public DatabaseAggregate(ShardedReads reads, RouterCursorManager cursors) {
        this.reads = reads;
        this.cursors = cursors;
    }

    /** Whether {@code command} is a database-level aggregate ({@code aggregate: 1}, any number equal to 1). */
    public static boolean isDatabaseLevel(BsonDocument command) {
        BsonValue target = command.get("aggregate");
        return target != null && target.isNumber() && target.asNumber().doubleValue() == 1;
    }

    /**
     * Runs a database-level aggregate on {@code db}.
     *
     * @throws CommandException as listed on the class; FailedToParse when {@code cursor} is missing; the engine's errors
     */
    public BsonDocument aggregate(OperationContext opCtx, String db, BsonDocument command) {
        DatabaseNames.validate(db); // any database, admin and config included: no shard is asked
        CommandArgs args = new CommandArgs(command);
        BsonArray pipeline = args.requiredArray("pipeline");
        if (pipeline.isEmpty()) {
            throw new CommandException(ErrorCode.InvalidNamespace, "{aggregate: 1} is not valid for an empty pipeline.");
        }
        BsonDocument first = args.document(pipeline.get(0), "pipeline.0");
        String stage = first.isEmpty() ? "" : first.getFirstKey();
        if (OTHER_COLLECTIONLESS_STAGES.contains(stage)) {
            throw new CommandException(ErrorCode.NotImplemented, "the database-level stage " + stage + " is not supported; $documents is");
        }
        if (!stage.equals("$documents")) {
            throw new CommandException(ErrorCode.InvalidNamespace, "{aggregate: 1} is not valid for '" + stage + "'; a collection is required.");
        }
        int batchSize = ShardedReads.aggregateBatchSize(args, command);
        CommandVariables variables = CommandVariables.ofCommand(command); // let and collation
        // the first stage's first field is $documents
        List<BsonDocument> input = documents(Objects.requireNonNull(first.get("$documents"), "$documents"), variables);
        BsonArray rest = new BsonArray(pipeline.subList(1, pipeline.size()));
        List<BsonDocument> output = PipelineSplit.run(rest, input, reads.lookupSource(opCtx, db), variables);
        return cursors.open(db, "$cmd.aggregate", DocumentStream.of(output), batchSize, false);
    }

    /** The documents {@code $documents: spec} produces. */
    private static List<BsonDocument> documents(BsonValue spec, CommandVariables variables) {
        BsonValue value = ExpressionParser.INSTANCE.parse(spec).evaluate(variables.scope(new BsonDocument()));
        if (value == null || !value.isArray()) {
            throw new CommandException(ErrorCode.TypeMismatch, "$documents requires an array of documents, not " + (value == null ? "missing" : value));
        }
        List<BsonDocument> documents = new ArrayList<>();
        for (BsonValue v : value.asArray()) {
            if (!v.isDocument()) {
                throw new CommandException(ErrorCode.TypeMismatch, "$documents requires an array of documents, found " + v);
            }
            documents.add(v.asDocument());
        }
        return documents;
    }
}
