package dev.shardstore.router.query;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.engine.aggregate.expression.CommandVariables;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.router.routing.ShardKeyTargeter;
import dev.shardstore.router.routing.ShardRegistry;
import dev.shardstore.router.routing.VersionedRouter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.springframework.stereotype.Component;

/**
 * {@code explain} on the router: {@code {explain: {find | count | distinct | update | delete | aggregate ...},
 * verbosity?}}. The explained command's filter (find's {@code filter}, count's and distinct's {@code query}, the
 * first update or delete statement's {@code q}, an aggregate's leading {@code $match}) targets the shards as the
 * command itself would; the explain goes to each targeted shard as the client wrote it, and the replies are shaped
 * as mongos does ({@link ShardedExplain}). An unsharded collection's explain is its primary shard's reply.
 * Which commands can be explained is the shards' business (they answer CommandNotFound otherwise).
 */
@Component
public class ShardedExplainer {
    private final VersionedRouter router;
    private final ShardRegistry shards;

    public ShardedExplainer(VersionedRouter router, ShardRegistry shards) {
        this.router = router;
        this.shards = shards;
    }

    /**
     * @return the explain reply; empty when the database does not exist
     * @throws CommandException TypeMismatch naming a malformed field; CommandNotFound for a command that cannot be
     *                          explained; the first shard error
     */
    public Optional<BsonDocument> explain(OperationContext opCtx, String db, BsonDocument command) {
        BsonDocument explained = command.getDocument("explain");
        String kind = explained.getFirstKey();
        if (kind.equals("aggregate") && explained.isArray("pipeline") && OutputStage.endsWithOutput(explained.getArray("pipeline"))) {
            return explainWithOutput(opCtx, db, command);
        }
        String collection = new CommandArgs(explained).collectionName();
        BsonDocument filter = targetingFilter(kind, explained);
        Collation collation = collationOf(kind, explained);
        return router.run(opCtx, db, collection, false, routing -> {
            List<String> targets = ShardKeyTargeter.shards(routing, filter, collation);
            if (!routing.isSharded()) {
                BsonDocument reply = router.send(opCtx, routing, targets.getFirst(), db, command);
                ShardResults.throwFirstError(List.of(reply));
                return reply;
            }
            long start = System.nanoTime();
            Map<String, BsonDocument> replies = router.sendAll(opCtx, routing, targets, db, shard -> command);
            ShardResults.throwFirstError(replies.values());
            List<ShardedExplain.ShardExplain> explains = new ArrayList<>();
            replies.forEach((shard, reply) -> explains.add(new ShardedExplain.ShardExplain(shard, shards.hostOf(shard), reply)));
            if (kind.equals("aggregate")) {
                return ShardedExplain.aggregate(targets.size() == 1 ? null : PipelineSplit.of(explained.getArray("pipeline")), explains);
            }
            boolean sorted = kind.equals("find") && explained.isDocument("sort") && !explained.getDocument("sort").isEmpty();
            return ShardedExplain.query(ShardedExplain.mergeStage(kind, targets.size(), sorted), explains,
                    (System.nanoTime() - start) / 1_000_000);
        });
    }

    /**
     * An aggregate ending with {@code $out}/{@code $merge} ({@link AggregateOutput}): the explain of the pipeline before
     * that stage, whose {@code mergerPart} ends with the stage, since the router writes the result ({@code mergeType:
     * "mongos"}; for a pipeline the shards run whole, {@code shardsPart} is that pipeline).
     */
    private Optional<BsonDocument> explainWithOutput(OperationContext opCtx, String db, BsonDocument command) {
        BsonArray pipeline = command.getDocument("explain").getArray("pipeline");
        OutputStage.checkPlacement(pipeline);
        BsonDocument stage = pipeline.get(pipeline.size() - 1).asDocument();
        BsonDocument reading = command.clone();
        reading.getDocument("explain").put("pipeline", OutputStage.without(pipeline));
        return explain(opCtx, db, reading).map(reply -> {
            if (reply.isDocument("splitPipeline")) {
                reply.getDocument("splitPipeline").getArray("mergerPart").add(stage);
            } else {
                BsonArray merger = new BsonArray(List.of(new BsonDocument("$mergeCursors", new BsonDocument()), stage));
                reply.put("mergeType", new BsonString("mongos"));
                reply.put("splitPipeline", new BsonDocument("shardsPart", OutputStage.without(pipeline)).append("mergerPart", merger));
            }
            return reply;
        });
    }

    /** The collation the targeting filter compares under: an update or delete statement's own, else the command's. */
    private static Collation collationOf(String kind, BsonDocument explained) {
        if ((kind.equals("update") || kind.equals("delete")) && explained.get(kind + "s") instanceof BsonArray statements
                && !statements.isEmpty() && statements.get(0) instanceof BsonDocument first) {
            return Collation.parse(kind + "." + kind + "s.0.collation", first.get("collation"));
        }
        return Collation.parse(kind + ".collation", explained.get("collation"));
    }

    /** The filter that targets the explained command (the shard's explain plans the same one). */
    private static BsonDocument targetingFilter(String kind, BsonDocument explained) {
        CommandArgs args = new CommandArgs(explained);
        return switch (kind) {
            case "find" -> args.optionalDocument(explained, "filter", "filter");
            case "count", "distinct" -> args.optionalDocument(explained, "query", "query");
            case "update", "delete" -> {
                BsonArray statements = args.requiredArray(kind + "s");
                yield statements.isEmpty() || !statements.get(0).isDocument() ? new BsonDocument()
                        : args.optionalDocument(statements.get(0).asDocument(), "q", kind + "s.0.q");
            }
            case "aggregate" -> {
                BsonArray pipeline = args.requiredArray("pipeline");
                PipelineSplit.validate(pipeline, CommandVariables.ofCommand(explained));
                yield PipelineSplit.leadingMatch(pipeline);
            }
            default -> throw new CommandException(ErrorCode.CommandNotFound, "Explain failed due to unknown command: " + kind);
        };
    }
}
