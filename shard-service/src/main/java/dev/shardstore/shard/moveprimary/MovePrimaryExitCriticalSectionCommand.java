package dev.shardstore.shard.moveprimary;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.command.CommandInvoker;
import dev.shardstore.shard.command.ShardCommand;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CriticalSection;
import dev.shardstore.shard.versioning.DatabaseFilteringInfo;
import dev.shardstore.shard.versioning.DatabaseShardingState;
import java.util.Optional;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * {@code _shardsvrMovePrimaryExitCriticalSection: 1} on the database being moved, sent by the movePrimary coordinator
 * to the old primary once the new primary is committed (or the move is abandoned): {@code {reason: {...}}} →
 * {@code {ok: 1, primary: bool}}. Exits the database's critical section held for {@code reason}, then reloads the
 * database version from the config service ({@code primary}: whether this shard is still the primary). The commands
 * that waited re-check against that version: after a committed move they get StaleDbVersion, and their routers
 * refresh and retry on the new primary. Idempotent: exiting a section no longer held succeeds. Errors:
 * ConflictingOperationInProgress (117) when the section is held for another reason; the config service's error
 * when the version cannot be reloaded (the section is exited all the same).
 */
@Component
public class MovePrimaryExitCriticalSectionCommand extends ShardCommand {
    private final CollectionShardingRuntime runtime;
    private final DatabaseShardingState databases;

    public MovePrimaryExitCriticalSectionCommand(CommandInvoker invoker, CollectionShardingRuntime runtime, DatabaseShardingState databases) {
        super(invoker);
        this.runtime = runtime;
        this.databases = databases;
    }

    @Override
    public String name() {
        return "_shardsvrMovePrimaryExitCriticalSection";
    }

    /** Sent by the config service, which is the authority here: no version is checked. */
    @Override
    protected boolean checksDatabaseVersion() {
        return false;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        BsonDocument reason = args.document(args.required(command, "reason", "reason"), "reason");
        Optional<CriticalSection> held = runtime.databaseCriticalSection(db);
        if (held.isPresent() && !held.get().heldFor(reason)) {
            throw new CommandException(ErrorCode.ConflictingOperationInProgress, "cannot exit the critical section of database '" + db
                    + "' for " + reason.toJson() + ": it is held for " + held.get().reason().toJson());
        }
        runtime.exitDatabaseCriticalSection(db, reason);
        DatabaseFilteringInfo info = databases.refresh(db);
        return Replies.ok(new BsonDocument("primary", BsonBoolean.valueOf(info.primary())));
    }
}
