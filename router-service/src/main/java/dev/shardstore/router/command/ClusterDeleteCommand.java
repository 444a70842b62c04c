package dev.shardstore.router.command;

import dev.shardstore.router.write.QueryTargeting;
import dev.shardstore.router.write.WriteWithoutShardKey;
import dev.shardstore.router.write.BatchedWrite;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.VersionedRouter;
import dev.shardstore.support.command.CommandHandler;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * {@code delete}: {@code {delete: coll, deletes: [{q, limit: 0|1}], ordered?}} → {@code {n, writeErrors?, ok: 1}}.
 * A malformed statement refuses the whole command naming {@code deletes.<i>.<field>} ({@code limit} is required,
 * 0 or 1, as on the shard). Each statement is targeted by {@link QueryTargeting} ({@code limit: 0} is a
 * multi-document delete; a {@code limit: 1} delete whose filter pins neither the shard key nor {@code _id} runs as
 * {@link WriteWithoutShardKey}). Batching,
 * ordering and merging: {@link BatchedWrite}. A database that does not exist has nothing to delete: {@code n: 0}.
 */
@Component
public class ClusterDeleteCommand implements CommandHandler {
    private final VersionedRouter router;

    public ClusterDeleteCommand(VersionedRouter router) {
        this.router = router;
    }

    @Override
    public String name() {
        return "delete";
    }

    @Override
    public BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
        Namespaces.checkUserDatabase(db, "delete");
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        BsonArray deletes = args.requiredBatch("deletes");
        List<BsonDocument> statements = new ArrayList<>(deletes.size());
        for (int i = 0; i < deletes.size(); i++) {
            String path = "deletes." + i;
            BsonDocument statement = args.document(deletes.get(i), path);
            args.document(args.required(statement, "q", path + ".q"), path + ".q");
            long limit = args.nonNegative(args.required(statement, "limit", path + ".limit"), path + ".limit");
            if (limit > 1) {
                throw new CommandException(ErrorCode.FailedToParse,
                        "The limit field in delete objects must be 0 or 1. Got " + limit + " in " + path + ".limit");
            }
            statements.add(statement);
        }
        boolean ordered = args.optionalBoolean(command, "ordered", "ordered", true);
        CommandVariables.parse(command.get("let"), "let"); // a bad let refuses the command here, not per statement on the shards
        return new BatchedWrite(router, db, collection, command, "deletes", statements, ordered, false, ClusterDeleteCommand::target)
                .refuseMultiWhenRetryable(statement -> statement.asDocument().getNumber("limit").longValue() == 0, "limit=0")
                .execute(opCtx, false).orElseGet(() -> Replies.ok(new BsonDocument("n", new BsonInt32(0))));
    }

    private static BatchedWrite.Target target(CollectionRouting routing, int index, BsonValue value) {
        BsonDocument statement = value.asDocument();
        boolean multi = statement.getNumber("limit").longValue() == 0;
        Collation collation = Collation.parse("delete.deletes." + index + ".collation", statement.get("collation"));
        return QueryTargeting.target(routing, statement.getDocument("q"), collation, multi, false);
    }
}
