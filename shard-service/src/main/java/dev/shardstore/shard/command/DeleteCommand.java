package dev.shardstore.shard.command;

import dev.shardstore.shard.write.DeleteStatement;
import dev.shardstore.shard.write.StatementOutcome;
import dev.shardstore.shard.write.WriteResult;
import dev.shardstore.shard.write.RetryableWrites;
import dev.shardstore.shard.write.TimeseriesModifier;
import dev.shardstore.shard.write.DocumentDeleter;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.SessionHistory;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import java.util.Optional;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code delete}: {@code {delete: <coll>, deletes: [{q, limit: 0|1, hint?, collation?}, ...], ordered?, let?}} →
 * {@code {n, writeErrors?, ok: 1}}, {@code n} counting deleted documents. {@code limit} is required
 * and must be 0 (all matches) or 1 (the first); a malformed statement fails the command naming it
 * ({@code deletes.0.limit}). {@code let} defines the variables of the statements' {@code $expr}
 * ({@link dev.shardstore.engine.aggregate.expression.CommandVariables}); a statement's {@code collation} is how its
 * {@code q} compares strings (refused on a time-series collection). See {@link DocumentDeleter}. With {@code lsid}
 * and {@code txnNumber} it is a retryable write ({@link RetryableWrites}): a statement that ran is answered as having
 * deleted its one document; a {@code limit: 0} statement is the write error InvalidOptions (72) "Cannot use (or
 * request) retryable writes with limit=0", as in MongoDB.
 * On a time-series collection each statement works on measurements ({@link TimeseriesModifier}).
 */
@Component
public class DeleteCommand extends StatementWriteCommand<DeleteStatement> {
    private final DocumentDeleter deleter;
    private final TimeseriesModifier modifier;

    public DeleteCommand(CommandInvoker invoker, DocumentDeleter deleter, RetryableWrites retryable, TimeseriesModifier modifier,
            TimeseriesCollections timeseries, CollectionCatalog catalog) {
        super(invoker, retryable, timeseries, catalog);
        this.deleter = deleter;
        this.modifier = modifier;
    }

    @Override
    public String name() {
        return "delete";
    }

    @Override
    protected DeleteStatement parse(CommandArgs args, BsonDocument entry, String path, Collation collation) {
        BsonDocument q = args.document(args.required(entry, "q", path + ".q"), path + ".q");
        long limit = args.nonNegative(args.required(entry, "limit", path + ".limit"), path + ".limit");
        if (limit > 1) {
            throw new CommandException(ErrorCode.FailedToParse,
                    "The limit field in delete objects must be 0 or 1. Got " + limit + " in " + path + ".limit");
        }
        return new DeleteStatement(q, limit == 1, entry.get("hint"), collation);
    }

    @Override
    protected Optional<String> refusedInRetryableWrite(DeleteStatement statement) {
        return statement.justOne() ? Optional.empty() : Optional.of("limit=0");
    }

    @Override
    protected StatementOutcome onDocuments(OperationContext opCtx, Namespace ns, DeleteStatement statement, CommandVariables variables, String path) {
        return deleter.delete(opCtx, ns, statement, variables);
    }

    @Override
    protected StatementOutcome onMeasurements(OperationContext opCtx, CollectionInfo buckets, TimeseriesOptions options, DeleteStatement statement,
            CommandVariables variables, String path) {
        return modifier.delete(opCtx, buckets, options, statement, variables, path);
    }

    @Override
    protected StatementOutcome replayed(SessionHistory.ExecutedStatement executed) {
        return RetryableWrites.oneDocument(executed);
    }

    @Override
    protected BsonDocument reply(WriteResult result) {
        return result.toReply();
    }
}
