package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.migration.ActiveMigrationsRegistry;
import java.time.Duration;
import dev.shardstore.shard.versioning.CollectionFilteringInfo;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CollectionShardingState;
import dev.shardstore.shard.versioning.CriticalSection;
import dev.shardstore.shard.versioning.CriticalSectionPhase;
import java.util.Optional;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code _shardsvrParticipantBlock: <coll>} on the collection's database, sent by a DDL coordinator of the
 * config service (docs/sharding-protocol.md, "Dropping a sharded collection"):
 * {@code {blockType: "Writes" | "ReadsAndWrites" | "Unblock", reason: {...}}} → {@code {ok: 1}}, and for
 * {@code Unblock} also {@code {sharded: bool}}.
 * <ul>
 *   <li>{@code Writes} / {@code ReadsAndWrites} enter phase 1 / 2 of the collection's critical section for
 *       {@code reason} ({@link CollectionShardingRuntime#enterCriticalSection}: waits for the commands in flight;
 *       persisted; held until unblocked, across restarts). First it waits until no chunk migration of the collection
 *       runs or is unfinished on this shard ({@link ActiveMigrationsRegistry#blockMigrations}; new ones are refused
 *       meanwhile, and by the section afterwards), so a DDL operation never interleaves with a migration's data steps;
 *       ConflictingOperationInProgress when one still runs after 20 s (the coordinator retries);</li>
 *   <li>{@code Unblock} exits the section held for {@code reason}, then reloads the collection's filtering metadata
 *       (the commands that waited refresh too; the loads coalesce).</li>
 * </ul>
 * Idempotent, so a coordinator that resumes after a crash may resend it: blocking again for the same reason changes
 * nothing, unblocking a section that is no longer held succeeds. Errors: FailedToParse/TypeMismatch/BadValue naming
 * {@code blockType} or {@code reason}; ConflictingOperationInProgress (117) when the section is held for another
 * reason.
 */
@Component
public class ShardsvrParticipantBlockCommand extends ShardCommand {
    private static final String UNBLOCK = "Unblock";
    /** How long a block waits for a running migration: below the config service's 30 s request timeout. */
    private static final Duration MIGRATION_WAIT = Duration.ofSeconds(20);

    private final CollectionShardingRuntime runtime;
    private final CollectionShardingState state;
    private final ActiveMigrationsRegistry migrations;

    public ShardsvrParticipantBlockCommand(CommandInvoker invoker, CollectionShardingRuntime runtime, CollectionShardingState state,
            ActiveMigrationsRegistry migrations) {
        super(invoker);
        this.runtime = runtime;
        this.state = state;
        this.migrations = migrations;
    }

    @Override
    public String name() {
        return "_shardsvrParticipantBlock";
    }

    /** Sent by the config service, which is the authority here: no version is checked. */
    @Override
    protected boolean checksDatabaseVersion() {
        return false;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        String blockType = args.requiredString("blockType");
        BsonDocument reason = args.document(args.required(command, "reason", "reason"), "reason");
        if (blockType.equals(UNBLOCK)) {
            Optional<CriticalSection> held = runtime.criticalSection(ns);
            if (held.isPresent() && !held.get().heldFor(reason)) {
                throw new CommandException(ErrorCode.ConflictingOperationInProgress, "cannot unblock " + ns + " for "
                        + reason.toJson() + ": its critical section is held for " + held.get().reason().toJson());
            }
            runtime.exitCriticalSection(ns, reason);
            CollectionFilteringInfo info = state.refresh(ns.full());
            return Replies.ok(new BsonDocument("sharded", BsonBoolean.valueOf(info.sharded())));
        }
        CriticalSectionPhase phase = CriticalSectionPhase.ofBlockType(blockType).orElseThrow(() -> new CommandException(ErrorCode.BadValue,
                        "'blockType' must be \"Writes\", \"ReadsAndWrites\" or \"Unblock\", not \"" + blockType + "\""));
        migrations.blockMigrations(ns, MIGRATION_WAIT, () -> {
            runtime.enterCriticalSection(ns, phase, reason, null);
            return null;
        });
        return Replies.ok();
    }
}
