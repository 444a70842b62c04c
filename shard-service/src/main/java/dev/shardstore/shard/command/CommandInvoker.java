package dev.shardstore.shard.command;

import dev.shardstore.contracts.namespace.DatabaseNames;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.shard.storage.Namespace;
import dev.shardstore.shard.versioning.DatabaseVersionCheck;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * What runs around every shard command: validating the database name, the database version check
 * (for commands that take part in it) and the per-command timer.
 */
@Component
public class CommandInvoker {
    private final DatabaseVersionCheck versionCheck;
    private final ShardMetrics metrics;

    public CommandInvoker(DatabaseVersionCheck versionCheck, ShardMetrics metrics) {
        this.versionCheck = versionCheck;
        this.metrics = metrics;
    }

    /**
     * Runs {@code body} for command {@code name} on {@code db}, timing it with its outcome.
     *
     * @param checkVersion whether to apply {@link DatabaseVersionCheck} to the command
     * @throws CommandException InvalidNamespace for a bad database name, StaleDbVersion, or what {@code body} throws
     */
    BsonDocument invoke(String name, String db, BsonDocument command, boolean checkVersion, Supplier<BsonDocument> body) {
        long start = System.nanoTime();
        String outcome = "InternalError";
        try {
            DatabaseNames.validate(db);
            if (checkVersion) {
                versionCheck.check(db, command);
            }
            BsonDocument reply = body.get();
            outcome = "ok";
            return reply;
        } catch (CommandException e) {
            outcome = e.code().codeName();
            throw e;
        } finally {
            metrics.recordCommand(name, outcome, System.nanoTime() - start);
        }
    }
}
