package dev.shardstore.shard.moveprimary;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.command.CommandInvoker;
import dev.shardstore.shard.command.ShardCommand;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CriticalSectionPhase;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * {@code _shardsvrMovePrimaryEnterCriticalSection: 1} on the database being moved, sent by the config service's
 * movePrimary coordinator to the old primary (docs/sharding-protocol.md, "Moving a database's primary shard"):
 * {@code {blockType: "Writes" | "ReadsAndWrites", reason: {...}}} → {@code {ok: 1}}. Enters phase 1 (writes blocked,
 * while the new primary clones) or phase 2 (reads too, for the commit) of the database's critical section
 * ({@link CollectionShardingRuntime#enterDatabaseCriticalSection}): it waits for the commands in flight that the
 * database version places, is persisted and is held until {@code _shardsvrMovePrimaryExitCriticalSection}, across
 * restarts. Idempotent for the same reason. Errors: FailedToParse/TypeMismatch/BadValue naming {@code blockType} or
 * {@code reason}; ConflictingOperationInProgress (117) when the section is held for another reason.
 */
@Component
public class MovePrimaryEnterCriticalSectionCommand extends ShardCommand {
    private final CollectionShardingRuntime runtime;

    public MovePrimaryEnterCriticalSectionCommand(CommandInvoker invoker, CollectionShardingRuntime runtime) {
        super(invoker);
        this.runtime = runtime;
    }

    @Override
    public String name() {
        return "_shardsvrMovePrimaryEnterCriticalSection";
    }

    /** Sent by the config service, which is the authority here: no version is checked. */
    @Override
    protected boolean checksDatabaseVersion() {
        return false;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        String blockType = args.requiredString("blockType");
        BsonDocument reason = args.document(args.required(command, "reason", "reason"), "reason");
        CriticalSectionPhase phase = CriticalSectionPhase.ofBlockType(blockType).orElseThrow(() -> new CommandException(
                ErrorCode.BadValue, "'blockType' must be \"Writes\" or \"ReadsAndWrites\", not \"" + blockType + "\""));
        runtime.enterDatabaseCriticalSection(db, phase, reason);
        return Replies.ok();
    }
}
