package dev.shardstore.shard.moveprimary;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.command.CommandInvoker;
import dev.shardstore.shard.command.ShardCommand;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * {@code _shardsvrCloneCatalogData: 1} on the database being moved (MongoDB's command of that name), sent by the
 * config service's movePrimary coordinator to the new primary: {@code {from: "<old primary's URL>", fromShard:
 * "<its id>", collections: ["<name>", ...]}} → {@code {ok: 1, clonedCollections: [...], clonedDocuments: n}}. Clones
 * the named unsharded collections from the old primary ({@link DatabaseCloner}); idempotent, so a resumed coordinator
 * may send it again. Errors: FailedToParse/TypeMismatch naming {@code from}, {@code fromShard} or
 * {@code collections.<i>}; the old primary's error or HostUnreachable when it cannot be read.
 */
@Component
public class CloneCatalogDataCommand extends ShardCommand {
    private final DatabaseCloner cloner;

    public CloneCatalogDataCommand(CommandInvoker invoker, DatabaseCloner cloner) {
        super(invoker);
        this.cloner = cloner;
    }

    @Override
    public String name() {
        return "_shardsvrCloneCatalogData";
    }

    /** Sent by the config service, which is the authority here: no version is checked. */
    @Override
    protected boolean checksDatabaseVersion() {
        return false;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        String from = args.requiredString("from");
        String fromShard = args.requiredString("fromShard");
        BsonArray names = args.requiredArray("collections");
        List<String> collections = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            if (!names.get(i).isString()) {
                throw new CommandException(ErrorCode.TypeMismatch, "'collections." + i + "' must be a collection name string");
            }
            collections.add(names.get(i).asString().getValue());
        }
        DatabaseCloner.Cloned cloned = cloner.cloneCollections(db, fromShard, from, collections);
        return Replies.ok(new BsonDocument("clonedCollections", new BsonArray(cloned.collections().stream()
                .map(c -> (BsonValue) new BsonString(c)).toList())).append("clonedDocuments", new BsonInt64(cloned.documents())));
    }
}
