package dev.shardstore.shard.command;

import dev.shardstore.support.command.CommandHandler;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Base of the shard's command handlers: every command runs through the {@link CommandInvoker}
 * (database name validation, database and shard version checks, timer) before {@link #execute}.
 */
public abstract class ShardCommand implements CommandHandler {
    private final CommandInvoker invoker;

    protected ShardCommand(CommandInvoker invoker) {
        this.invoker = invoker;
    }

    @Override
    public final BsonDocument run(String db, BsonDocument command) {
        return invoker.invoke(name(), db, command, checksDatabaseVersion(), versionedCollection(command), () -> execute(db, command));
    }

    /**
     * Runs the command once the checks passed.
     *
     * @return the reply including {@code ok: 1}
     * @throws dev.shardstore.contracts.error.CommandException for every failure the caller should see
     */
    protected abstract BsonDocument execute(String db, BsonDocument command);

    /**
     * Whether the versions sent with this command ({@code databaseVersion}, and {@code shardVersion} for its
     * {@link #versionedCollection}) are checked. True except for commands about the shard itself (ping,
     * _shardsvrName, listDatabases) or its metadata (_shardsvrRefreshCollection, _shardsvrDataDistribution).
     */
    protected boolean checksDatabaseVersion() {
        return true;
    }

    /**
     * The collection whose {@code shardVersion}, if the command carries one, is checked before it runs (and whose
     * orphans it then does not see): by default the command's first field when it is a string
     * ({@code {find: "coll"}}), as for every collection command; null for other commands.
     */
    protected @Nullable String versionedCollection(BsonDocument command) {
        BsonValue first = command.isEmpty() ? null : command.get(command.getFirstKey());
        return first != null && first.isString() ? first.asString().getValue() : null;
    }
}
