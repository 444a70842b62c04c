package dev.shardstore.shard.command;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.DatabaseNames;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import dev.shardstore.shard.versioning.CollectionAccess;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * What runs around every shard command: validating the database name, then {@link CollectionShardingRuntime} (the
 * collection lock the command declared, the database and shard version checks under it, the wait for a critical
 * section, the accepted filtering metadata the command runs with), and the per-command timer.
 */
@Component
public class CommandInvoker {
    private final CollectionShardingRuntime runtime;
    private final ShardMetrics metrics;
    private final TimeseriesCollections timeseries;

    public CommandInvoker(CollectionShardingRuntime runtime, ShardMetrics metrics, TimeseriesCollections timeseries) {
        this.runtime = runtime;
        this.metrics = metrics;
        this.timeseries = timeseries;
    }

    /**
     * Runs {@code body} for command {@code name} on {@code db}, timing it with its outcome.
     *
     * @param checkVersions whether the {@code databaseVersion} and {@code shardVersion} the command carries are checked
     * @param namespace     the collection the command is about (locked per {@code access}, and whose
     *                      {@code shardVersion} is checked), or null for commands that are not about one collection;
     *                      asked once the database name is valid
     * @param servesTimeseries whether the command handles a time-series {@code namespace} itself; when not, it is refused
     * @throws CommandException InvalidNamespace for a bad database name, StaleDbVersion, StaleConfig, NotImplemented
     *                          (238) for a command that does not serve time-series collections sent to one, or what
     *                          {@code body} throws
     */
    BsonDocument invoke(String name, String db, BsonDocument command, boolean checkVersions, Supplier<@Nullable Namespace> namespace,
            CollectionAccess access, boolean servesTimeseries, Supplier<BsonDocument> body) {
        long start = System.nanoTime();
        String outcome = "InternalError";
        try {
            DatabaseNames.validate(db);
            Namespace target = namespace.get();
            Supplier<BsonDocument> guarded = servesTimeseries || target == null ? body : () -> {
                if (timeseries.buckets(target).isPresent()) {
                    throw new CommandException(ErrorCode.NotImplemented, name + " on the time-series collection " + target
                            + " is not supported");
                }
                return body.get();
            };
            BsonDocument reply = runtime.run(db, target, access, command, checkVersions, guarded);
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
