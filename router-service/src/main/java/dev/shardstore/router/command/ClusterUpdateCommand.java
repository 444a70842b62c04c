package dev.shardstore.router.command;

import dev.shardstore.router.write.QueryTargeting;
import dev.shardstore.router.write.WriteWithoutShardKey;
import dev.shardstore.router.write.BatchedWrite;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.router.routing.VersionedRouter;
import dev.shardstore.support.command.CommandHandler;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * {@code update}: {@code {update: coll, updates: [{q, u, upsert?, multi?, ...}], ordered?}} → {@code {n, nModified,
 * upserted?: [{index, _id}], writeErrors?, ok: 1}}. A malformed statement (not a document, {@code q} not a
 * document, {@code u} missing, {@code multi}/{@code upsert} not booleans) refuses the whole command naming
 * {@code updates.<i>.<field>}. Each statement is targeted by {@link QueryTargeting}: a single update or upsert whose
 * filter does not pin the shard key runs as {@link WriteWithoutShardKey}; a {@code multi: true} upsert without the
 * shard key refuses the whole command ({@code ShardKeyNotFound}, 400) before any statement is sent. On the {@code config}
 * database the command goes to the config service as it is (its {@code update} there changes {@code config.settings} and
 * {@code config.collections}' {@code noBalance}, and refuses the rest). In a transaction, an update of one statement
 * that changes its document's owning shard moves the document ({@link DocumentShardKeyUpdate}). Batching, ordering and merging: {@link BatchedWrite}. Creates
 * the database when missing (an upsert may insert).
 */
@Component
public class ClusterUpdateCommand implements CommandHandler {
    private final VersionedRouter router;
    private final ConfigServer config;
    private final DocumentShardKeyUpdate shardKeyUpdate;

    public ClusterUpdateCommand(VersionedRouter router, ConfigServer config, DocumentShardKeyUpdate shardKeyUpdate) {
        this.router = router;
        this.config = config;
        this.shardKeyUpdate = shardKeyUpdate;
    }

    @Override
    public String name() {
        return "update";
    }

    @Override
    public BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
        if ("config".equals(db)) {
            // config.settings and config.collections' noBalance, as mongos forwards them to the config server
            return config.run(db, command);
        }
        Namespaces.checkUserDatabase(db, "update");
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        BsonArray updates = args.requiredBatch("updates");
        List<BsonDocument> statements = new ArrayList<>(updates.size());
        for (int i = 0; i < updates.size(); i++) {
            String path = "updates." + i;
            BsonDocument statement = args.document(updates.get(i), path);
            args.document(args.required(statement, "q", path + ".q"), path + ".q");
            args.required(statement, "u", path + ".u");
            args.optionalBoolean(statement, "multi", path + ".multi", false);
            args.optionalBoolean(statement, "upsert", path + ".upsert", false);
            statements.add(statement);
        }
        boolean ordered = args.optionalBoolean(command, "ordered", "ordered", true);
        CommandVariables.parse(command.get("let"), "let"); // a bad let refuses the command here, not per statement on the shards
        BsonDocument reply = new BatchedWrite(router, db, collection, command, "updates", statements, ordered, true, (routing, index, statement) ->
                target(args, routing, index, statement.asDocument()))
                .refuseMultiWhenRetryable(statement -> args.optionalBoolean(statement.asDocument(), "multi", "multi", false), "multi=true")
                .execute(opCtx, true).orElseThrow();
        return shardKeyUpdate.wouldChangeOwningShard(opCtx, statements.size(), reply)
                .map(info -> shardKeyUpdate.move(opCtx, db, collection, info)).orElse(reply);
    }

    private static BatchedWrite.Target target(CommandArgs args, CollectionRouting routing, int index, BsonDocument statement) {
        String path = "updates." + index;
        return QueryTargeting.target(routing, statement.getDocument("q"), Collation.parse("update." + path + ".collation", statement.get("collation")),
                args.optionalBoolean(statement, "multi", path + ".multi", false), args.optionalBoolean(statement, "upsert", path + ".upsert", false));
    }
}
