package dev.shardstore.shard.command;

import dev.shardstore.contracts.namespace.DatabaseNames;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.versioning.DatabaseVersionCheck;
import dev.shardstore.shard.versioning.OperationShardingState;
import dev.shardstore.shard.versioning.OwnershipFilter;
import dev.shardstore.shard.versioning.ShardVersionCheck;
import java.util.function.Supplier;
import dev.shardstore.contracts.http.InternalApi;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * What runs around every shard command: validating the database name, the database version check
 * (for commands that take part in it), the shard version check of collection commands (whose accepted
 * filtering metadata the command then runs with, see {@link OperationShardingState}) and the per-command timer.
 */
@Component
public class CommandInvoker {
    private final DatabaseVersionCheck versionCheck;
    private final ShardVersionCheck shardVersionCheck;
    private final ShardMetrics metrics;

    public CommandInvoker(DatabaseVersionCheck versionCheck, ShardVersionCheck shardVersionCheck, ShardMetrics metrics) {
        this.versionCheck = versionCheck;
        this.shardVersionCheck = shardVersionCheck;
        this.metrics = metrics;
    }

    /**
     * Runs {@code body} for command {@code name} on {@code db}, timing it with its outcome.
     *
     * @param checkVersion whether to apply {@link DatabaseVersionCheck} to the command
     * @param collection   the collection the command is about, whose {@code shardVersion} (if sent) is checked with
     *                     {@link ShardVersionCheck}; null for commands that are not about one collection
     * @throws CommandException InvalidNamespace for a bad database or collection name, StaleDbVersion, StaleConfig,
     *                          or what {@code body} throws
     */
    BsonDocument invoke(String name, String db, BsonDocument command, boolean checkVersion, @Nullable String collection,
            Supplier<BsonDocument> body) {
        long start = System.nanoTime();
        String outcome = "InternalError";
        try {
            DatabaseNames.validate(db);
            if (checkVersion) {
                versionCheck.check(db, command);
            }
            OwnershipFilter filter = null;
            if (checkVersion && collection != null && command.containsKey(InternalApi.SHARD_VERSION_FIELD)) {
                filter = shardVersionCheck.check(new Namespace(db, collection).full(), command).orElse(null);
            }
            BsonDocument reply = OperationShardingState.runWith(filter, body);
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
