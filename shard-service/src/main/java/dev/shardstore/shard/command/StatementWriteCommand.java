package dev.shardstore.shard.command;

import dev.shardstore.shard.write.StatementOutcome;
import dev.shardstore.shard.write.WriteResult;
import dev.shardstore.shard.write.RetryableWrites;
import dev.shardstore.shard.write.TimeseriesModifier;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionCollation;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.SessionHistory;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import dev.shardstore.shard.versioning.CollectionAccess;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonDocument;

/**
 * What {@code update} and {@code delete} share: {@code {<name>: <coll>, <name>s: [<statement>, ...], ordered?, let?}}.
 * Every statement is parsed before any runs, so a malformed one fails the whole command with an error naming it
 * ({@code updates.2.q}) and nothing is written. The statements then run in order through {@link RetryableWrites}
 * (an ordered batch stops at the first failing one): on documents, or on a time-series collection's measurements
 * ({@link TimeseriesModifier}). {@code let} defines the variables of their {@code $expr}; a statement without a
 * {@code collation} compares strings with the collection's default one. In a retryable write a statement that already
 * ran is answered from its oplog entry, and one that may change several documents is the write error InvalidOptions
 * (72), as in MongoDB.
 *
 * @param <S> a parsed statement
 */
abstract class StatementWriteCommand<S> extends ShardCommand {
    private final RetryableWrites retryable;
    private final TimeseriesCollections timeseries;
    private final CollectionCatalog catalog;

    protected StatementWriteCommand(CommandInvoker invoker, RetryableWrites retryable, TimeseriesCollections timeseries,
            CollectionCatalog catalog) {
        super(invoker);
        this.retryable = retryable;
        this.timeseries = timeseries;
        this.catalog = catalog;
    }

    @Override
    protected final boolean servesTimeseries() {
        return true;
    }

    @Override
    protected final CollectionAccess access() {
        return CollectionAccess.WRITE;
    }

    /**
     * Parses statement {@code path} ({@code deletes.3}).
     *
     * @param collation the statement's collation, or the collection's default when it names none
     * @throws dev.shardstore.contracts.error.CommandException naming the malformed field
     */
    protected abstract S parse(CommandArgs args, BsonDocument entry, String path, Collation collation);

    /** The option a retryable write refuses in {@code statement} ({@code multi=true}, {@code limit=0}), or empty. */
    protected abstract Optional<String> refusedInRetryableWrite(S statement);

    /** Runs {@code statement} on the documents of {@code ns}, opening its units with {@code opCtx}. */
    protected abstract StatementOutcome onDocuments(OperationContext opCtx, Namespace ns, S statement, CommandVariables variables, String path);

    /** Runs {@code statement} on the measurements of the time-series collection whose buckets are {@code buckets}. */
    protected abstract StatementOutcome onMeasurements(OperationContext opCtx, CollectionInfo buckets, TimeseriesOptions options, S statement,
            CommandVariables variables, String path);

    /** The outcome of a retryable write's statement that already ran, from its oplog entry. */
    protected abstract StatementOutcome replayed(SessionHistory.ExecutedStatement executed);

    /** The command's reply for {@code result}. */
    protected abstract BsonDocument reply(WriteResult result);

    @Override
    protected final BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        String field = name() + "s";
        BsonArray array = args.requiredBatch(field);
        List<S> statements = new ArrayList<>(array.size());
        Optional<CollectionInfo> collection = catalog.find(ns); // its default collation, for statements without one
        for (int i = 0; i < array.size(); i++) {
            String path = field + "." + i;
            BsonDocument entry = args.document(array.get(i), path);
            statements.add(parse(args, entry, path,
                    CollectionCollation.effective(name() + "." + path + ".collation", entry.get("collation"), collection)));
        }
        boolean ordered = args.optionalBoolean(command, "ordered", "ordered", true);
        CommandVariables variables = CommandVariables.parse(command.get("let"), "let");
        boolean retryableWrite = RetryableWrites.retryable(opCtx).isPresent();
        Optional<CollectionInfo> buckets = timeseries.buckets(ns);
        TimeseriesOptions options = buckets.flatMap(b -> TimeseriesCollections.optionsOf(opCtx, b)).orElse(null);
        return reply(retryable.run(opCtx, statements.size(), ordered, (statementCtx, i) -> {
            S statement = statements.get(i);
            String path = field + "." + i;
            Optional<String> refused = retryableWrite ? refusedInRetryableWrite(statement) : Optional.empty();
            return refused.isPresent() ? RetryableWrites.refusedMulti(refused.get())
                    : buckets.isPresent() ? onMeasurements(statementCtx, buckets.get(),
                            Objects.requireNonNull(options, "a buckets collection has time-series options"), statement, variables, path)
                    : onDocuments(statementCtx, ns, statement, variables, path);
        }, this::replayed));
    }
}
