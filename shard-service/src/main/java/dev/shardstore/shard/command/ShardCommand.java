package dev.shardstore.shard.command;

import dev.shardstore.contracts.error.ErrorCode;

import dev.shardstore.contracts.error.CommandException;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.versioning.CollectionAccess;
import dev.shardstore.support.command.CommandHandler;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Base of the shard's command handlers: every command runs through the {@link CommandInvoker} (database name
 * validation, the collection lock for its declared {@link #access}, database and shard version checks under it,
 * timer) before {@link #execute}. Commands do not lock their collection themselves.
 */
public abstract class ShardCommand implements CommandHandler {
    private final CommandInvoker invoker;

    protected ShardCommand(CommandInvoker invoker) {
        this.invoker = invoker;
    }

    @Override
    public final BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
        return invoker.invoke(opCtx, name(), db, command, checksDatabaseVersion(), () -> namespace(db, command), access(),
                servesTimeseries(), servesViews(), checked -> execute(checked, db, command));
    }

    /**
     * A command that runs on {@code admin} only and names no collection: its versions are not checked and the invoker
     * takes no lock for it.
     *
     * @param body runs the command; elsewhere than on {@code admin} it is Unauthorized (13) "... may only be run against
     *             the admin database.", MongoDB's answer for its admin-only commands
     */
    public static ShardCommand adminOnly(CommandInvoker invoker, String name, CommandHandler.OperationBody body) {
        return new ShardCommand(invoker) {
            @Override
            public String name() {
                return name;
            }

            @Override
            protected boolean checksDatabaseVersion() {
                return false;
            }

            @Override
            protected @Nullable Namespace namespace(String db, BsonDocument command) {
                return null;
            }

            @Override
            protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
                if (!"admin".equals(db)) {
                    throw new CommandException(ErrorCode.Unauthorized, name + " may only be run against the admin database.");
                }
                return body.run(opCtx, db, command);
            }
        };
    }

    /**
     * Runs the command once the checks passed, holding the collection lock {@link #access} asks for.
     *
     * @param opCtx the operation, with the filtering metadata its shard version check accepted
     *              ({@link dev.shardstore.shard.versioning.OperationShardingState})
     * @return the reply including {@code ok: 1}
     * @throws dev.shardstore.contracts.error.CommandException for every failure the caller should see
     */
    protected abstract BsonDocument execute(OperationContext opCtx, String db, BsonDocument command);

    /**
     * What the command does to its {@link #namespace}: the lock it runs under and what a critical section blocks.
     * {@link CollectionAccess#NONE} by default (commands about the shard, its metadata, or cursors).
     */
    protected CollectionAccess access() {
        return CollectionAccess.NONE;
    }

    /**
     * Whether the command knows time-series collections (MongoDB's view-like {@code db.coll} whose measurements live in
     * {@code db.system.buckets.coll}). False by default: such a command sent to a time-series namespace is refused
     * with NotImplemented (238) rather than answered as if the namespace were an empty collection.
     */
    protected boolean servesTimeseries() {
        return false;
    }

    /**
     * Whether the command knows views (MongoDB's {@code create} with {@code viewOn}; {@link dev.shardstore.shard.view.ViewCatalog}).
     * False by default: a read of a view is answered with its resolved pipeline for the router to run, anything else
     * is CommandNotSupportedOnView (166) — a view is read-only.
     */
    protected boolean servesViews() {
        return false;
    }

    /**
     * Whether the versions sent with this command ({@code databaseVersion}, and {@code shardVersion} for its
     * {@link #namespace}) are checked. True except for commands about the shard itself (ping,
     * _shardsvrName, listDatabases) or its metadata (_shardsvrRefreshCollection, _shardsvrDataDistribution).
     */
    protected boolean checksDatabaseVersion() {
        return true;
    }

    /**
     * The collection the command is about — locked per {@link #access}, whose {@code shardVersion} (if the command
     * carries one) is checked and whose orphans it then does not see: by default {@code db.<first field>} when the
     * first field is a string ({@code {find: "coll"}}), as for every collection command; null for other commands.
     *
     * @throws dev.shardstore.contracts.error.CommandException InvalidNamespace for a bad collection name
     */
    protected @Nullable Namespace namespace(String db, BsonDocument command) {
        BsonValue first = command.isEmpty() ? null : command.get(command.getFirstKey());
        return first != null && first.isString() ? new Namespace(db, first.asString().getValue()) : null;
    }
}
