package dev.shardstore.shard.migration;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.shard.command.CommandInvoker;
import dev.shardstore.shard.command.ShardCommand;
import java.time.Duration;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The shard's chunk migration commands (docs/sharding-protocol.md, "Chunk migration"), all on {@code admin} with the
 * namespace {@code "db.coll"} as their first field. They are internal (sent by the config service or the other shard of a
 * migration), carry no versions and lock what they touch themselves. Malformed fields are FailedToParse/TypeMismatch/
 * BadValue naming the field.
 */
@Configuration
public class MigrationCommands {
    /** How long {@code _recvChunkCommit} waits for the recipient to apply the last changes. */
    static final Duration COMMIT_WAIT = Duration.ofSeconds(25);

    /**
     * {@code {_shardsvrMoveRange: "db.coll", min, max, chunkVersion, fromShard, toShard, waitForDelete?, forceJumbo?,
     * maxChunkSizeBytes}} → {@code {migrationId, documentsCloned, bytesCloned, modsTransferred, criticalSectionMillis, ok: 1}}
     * once the migration is over ({@link MigrationSourceManager}).
     */
    @Bean
    ShardCommand shardsvrMoveRange(CommandInvoker invoker, MigrationSourceManager donor) {
        return command(invoker, "_shardsvrMoveRange", (ns, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            long maxChunkSize = args.optionalNonNegative("maxChunkSizeBytes", 128L * 1024 * 1024);
            return Replies.ok(donor.moveRange(new MoveRangeRequest(ns, range(args, cmd), version(args, cmd, "chunkVersion"),
                    args.requiredString("fromShard"), args.requiredString("toShard"),
                    args.optionalBoolean(cmd, "waitForDelete", "waitForDelete", false),
                    args.optionalBoolean(cmd, "forceJumbo", "forceJumbo", false), Math.max(1, maxChunkSize))));
        });
    }

    /**
     * {@code {_recvChunkStart: "db.coll", migrationId, fromShard, min, max, shardKeyPattern, startAfter: Timestamp}} →
     * {@code {ok: 1}} once the receipt runs in the background ({@link MigrationDestinationManager}).
     */
    @Bean
    ShardCommand recvChunkStart(CommandInvoker invoker, MigrationDestinationManager recipient) {
        return command(invoker, "_recvChunkStart", (ns, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            BsonValue startAfter = args.required(cmd, "startAfter", "startAfter");
            if (!startAfter.isTimestamp()) {
                throw new CommandException(ErrorCode.TypeMismatch, "'startAfter' must be a Timestamp");
            }
            ShardKeyPattern key = ShardKeyPattern.of(args.document(args.required(cmd, "shardKeyPattern", "shardKeyPattern"), "shardKeyPattern"));
            recipient.start(new MigrationDestinationManager.StartRequest(migrationId(args), ns, range(args, cmd),
                    args.requiredString("fromShard"), key, startAfter.asTimestamp()));
            return Replies.ok();
        });
    }

    /** {@code {_recvChunkStatus: "db.coll", migrationId}} → the receipt's state ({@link MigrationDestinationManager#status}). */
    @Bean
    ShardCommand recvChunkStatus(CommandInvoker invoker, MigrationDestinationManager recipient) {
        return command(invoker, "_recvChunkStatus", (ns, cmd) -> Replies.ok(recipient.status(migrationId(new CommandArgs(cmd)))));
    }

    /** {@code {_recvChunkCommit: "db.coll", migrationId}} → the final state once every change is applied. */
    @Bean
    ShardCommand recvChunkCommit(CommandInvoker invoker, MigrationDestinationManager recipient) {
        return command(invoker, "_recvChunkCommit", (ns, cmd) -> Replies.ok(recipient.commit(migrationId(new CommandArgs(cmd)), COMMIT_WAIT)));
    }

    /** {@code {_recvChunkDecision: "db.coll", migrationId, decision: "committed" | "aborted"}} → {@code {ok: 1}}. */
    @Bean
    ShardCommand recvChunkDecision(CommandInvoker invoker, MigrationDestinationManager recipient) {
        return command(invoker, "_recvChunkDecision", (ns, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            MigrationDecision decision;
            try {
                decision = MigrationDecision.of(args.requiredString("decision"));
            } catch (IllegalArgumentException e) {
                throw new CommandException(ErrorCode.BadValue, "'decision': " + e.getMessage());
            }
            recipient.decide(migrationId(args), decision);
            return Replies.ok();
        });
    }

    /** {@code {_migrateClone: "db.coll", migrationId, after?: {key, id}}} → the next batch ({@link MigrationChunkClonerSource}). */
    @Bean
    ShardCommand migrateClone(CommandInvoker invoker, MigrationChunkClonerSource cloner) {
        return command(invoker, "_migrateClone", (ns, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            BsonValue after = cmd.get("after");
            return Replies.ok(cloner.nextCloneBatch(migrationId(args), after == null || after.isNull() ? null : args.document(after, "after")));
        });
    }

    /** {@code {_transferMods: "db.coll", migrationId, after: Timestamp}} → the next changes ({@link MigrationChunkClonerSource}). */
    @Bean
    ShardCommand transferMods(CommandInvoker invoker, MigrationChunkClonerSource cloner) {
        return command(invoker, "_transferMods", (ns, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            BsonValue after = args.required(cmd, "after", "after");
            if (!after.isTimestamp()) {
                throw new CommandException(ErrorCode.TypeMismatch, "'after' must be a Timestamp");
            }
            return Replies.ok(cloner.nextMods(migrationId(args), after.asTimestamp()));
        });
    }

    /**
     * {@code {_getNextSessionMods: "db.coll", migrationId, after: long}} → the range's retryable-write history after
     * {@code after} ({@link MigrationChunkClonerSource#nextSessionMods}).
     */
    @Bean
    ShardCommand getNextSessionMods(CommandInvoker invoker, MigrationChunkClonerSource cloner) {
        return command(invoker, "_getNextSessionMods", (ns, cmd) -> {
            BsonValue after = new CommandArgs(cmd).required(cmd, "after", "after");
            if (!after.isInt64()) {
                throw new CommandException(ErrorCode.TypeMismatch, "'after' must be a long");
            }
            return Replies.ok(cloner.nextSessionMods(migrationId(new CommandArgs(cmd)), after.asInt64().getValue()));
        });
    }

    /**
     * MongoDB's {@code {cleanupOrphaned: "db.coll"}} → {@code {ok: 1}} once this shard has no orphaned range of the
     * collection left ({@link RangeDeleter#awaitNoOrphans}); ExceededTimeLimit after a day.
     */
    @Bean
    ShardCommand cleanupOrphaned(CommandInvoker invoker, RangeDeleter rangeDeleter) {
        return command(invoker, "cleanupOrphaned", (ns, cmd) -> {
            rangeDeleter.awaitNoOrphans(ns, Duration.ofDays(1));
            return Replies.ok();
        });
    }

    /**
     * {@code {currentOp: 1}} on {@code admin} → {@code {inprog: [...], ok: 1}}: MongoDB's listing, with this shard's running
     * migrations as its operations ({@link MigrationProgress#describe}).
     */
    @Bean
    ShardCommand currentOp(CommandInvoker invoker, ActiveMigrationsRegistry registry) {
        return adminCommand(invoker, "currentOp", command ->
                Replies.ok(new BsonDocument("inprog", new BsonArray(registry.active().stream().map(MigrationProgress::describe).toList()))));
    }

    /** A migration command: on {@code admin}, its first field the namespace, no versions, no lock taken by the invoker. */
    private static ShardCommand command(CommandInvoker invoker, String name, BiFunction<Namespace, BsonDocument, BsonDocument> body) {
        return adminCommand(invoker, name, command -> body.apply(Namespace.parse(new CommandArgs(command).requiredString(name), name), command));
    }

    /** A command on {@code admin} only ({@link ShardCommand#adminOnly}). */
    private static ShardCommand adminCommand(CommandInvoker invoker, String name, Function<BsonDocument, BsonDocument> body) {
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, command) -> body.apply(command));
    }

    private static UUID migrationId(CommandArgs args) {
        String value = args.requiredString("migrationId");
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw new CommandException(ErrorCode.BadValue, "'migrationId' must be a UUID string, not '" + value + "'");
        }
    }

    private static ChunkRange range(CommandArgs args, BsonDocument cmd) {
        return new ChunkRange(args.document(args.required(cmd, "min", "min"), "min"), args.document(args.required(cmd, "max", "max"), "max"));
    }

    private static ChunkVersion version(CommandArgs args, BsonDocument cmd, String field) {
        try {
            return ChunkVersion.fromBson(args.document(args.required(cmd, field, field), field));
        } catch (IllegalArgumentException e) {
            throw new CommandException(ErrorCode.BadValue, "'" + field + "': " + e.getMessage());
        }
    }
}
