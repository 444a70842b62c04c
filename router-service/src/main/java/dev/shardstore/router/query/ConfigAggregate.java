package dev.shardstore.router.query;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.router.cursor.DocumentStream;
import dev.shardstore.router.cursor.RouterCursorManager;
import dev.shardstore.router.routing.ConfigServer;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * {@code aggregate} on a collection of the {@code config} database ({@code config.chunks}, {@code config.changelog},
 * {@code config.shards}, ...), which mongosh's {@code sh.status()} and admins run on mongos: the collection's documents
 * are read with the config service's {@code find}, the leading {@code $match} as its filter (so one collection's
 * chunks are read, not every chunk), and the pipeline runs on the router with the query engine. {@code $lookup} reads
 * other config collections the same way. The result is a router cursor ({@code batchSize}, {@code getMore}).
 *
 * <p>Errors: the pipeline's parse and evaluation errors, before anything is read; the config service's find errors
 * (QueryFeatureNotAllowed (224) for {@code $expr} in the leading {@code $match}); NotImplemented (238) for
 * {@code explain} and for {@code $out}/{@code $merge}, named, rather than ignored.
 */
@Component
public class ConfigAggregate {
    private final ConfigServer config;
    private final RouterCursorManager cursors;

    public ConfigAggregate(ConfigServer config, RouterCursorManager cursors) {
        this.config = config;
        this.cursors = cursors;
    }

    /**
     * Answers {@code command}, an aggregate on {@code config.<collection>}: {@code {cursor: {firstBatch, id, ns}, ok: 1}}.
     *
     * @throws CommandException as listed on the class
     */
    public BsonDocument aggregate(BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        BsonArray pipeline = args.requiredArray("pipeline");
        if (args.optionalBoolean(command, "explain", "explain", false)) {
            throw new CommandException(ErrorCode.NotImplemented, "'explain' is not supported on an aggregate of the config database");
        }
        if (OutputStage.endsWithOutput(pipeline)) {
            throw new CommandException(ErrorCode.NotImplemented, "$out and $merge are not supported on an aggregate of the config database");
        }
        int batchSize = ShardedReads.aggregateBatchSize(args, command);
        CommandVariables variables = CommandVariables.ofCommand(command); // let and collation
        PipelineSplit.validate(pipeline, variables);
        List<BsonDocument> results = PipelineSplit.run(pipeline, config.find(collection, PipelineSplit.leadingMatch(pipeline)),
                this::lookup, variables);
        return cursors.open("config", collection, DocumentStream.of(results), batchSize, false);
    }

    private List<BsonDocument> lookup(String collection, Filter filter) {
        return config.find(collection, new BsonDocument()).stream().filter(filter::matches).toList();
    }
}
