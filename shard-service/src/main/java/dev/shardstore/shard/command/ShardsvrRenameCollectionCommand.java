package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.cursor.CursorManager;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.versioning.CollectionAccess;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * Shard-internal {@code _shardsvrRenameCollection}: {@code {_shardsvrRenameCollection: <from>, to: <to>, dropTarget:
 * true}} on a database → {@code {ok: 1}}: renames {@code db.from} to {@code db.to} in this shard's catalog, replacing
 * {@code db.to} when it exists, in one PostgreSQL transaction ({@link CollectionCatalog#renameDroppingTarget}). It is
 * what the router's {@code $out} ends with, as MongoDB's {@code $out} ends with an internal {@code renameCollection}
 * with {@code dropTarget: true} on the target's primary shard (MongoDB manual: the aggregation {@code $out} stage). Both
 * namespaces are locked exclusively (the source through the command's declared access, the target here), so a reader
 * of the target sees its old contents or its new ones; cursors open on either are killed, as a drop kills them.
 *
 * <p>Errors: NamespaceNotFound (26) when {@code from} does not exist; IllegalOperation (20) when {@code dropTarget}
 * is not {@code true} (only the replacing rename is served) or {@code to} equals {@code from}.
 */
@Component
public class ShardsvrRenameCollectionCommand extends ShardCommand {
    /** The command's name. */
    public static final String NAME = "_shardsvrRenameCollection";
    private final CollectionCatalog catalog;
    private final CollectionShardingRuntime runtime;
    private final CursorManager cursors;

    public ShardsvrRenameCollectionCommand(CommandInvoker invoker, CollectionCatalog catalog, CollectionShardingRuntime runtime,
            CursorManager cursors) {
        super(invoker);
        this.catalog = catalog;
        this.runtime = runtime;
        this.cursors = cursors;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.EXCLUSIVE;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace from = new Namespace(db, args.collectionName());
        Namespace to = new Namespace(db, args.requiredString("to"));
        if (!args.optionalBoolean(command, "dropTarget", "dropTarget", false)) {
            throw new CommandException(ErrorCode.IllegalOperation, NAME + " only renames with dropTarget: true");
        }
        if (from.equals(to)) {
            throw new CommandException(ErrorCode.IllegalOperation, "Can't rename a collection to itself");
        }
        return runtime.exclusive(to, () -> {
            if (catalog.renameDroppingTarget(opCtx, from, to).isEmpty()) {
                throw new CommandException(ErrorCode.NamespaceNotFound, "Source collection " + from.full() + " does not exist");
            }
            cursors.killCollection(from);
            cursors.killCollection(to);
            return Replies.ok();
        });
    }
}
