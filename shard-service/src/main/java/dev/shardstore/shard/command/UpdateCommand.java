package dev.shardstore.shard.command;

import dev.shardstore.shard.write.UpdateStatement;
import dev.shardstore.shard.write.StatementOutcome;
import dev.shardstore.shard.write.WriteResult;
import dev.shardstore.shard.write.RetryableWrites;
import dev.shardstore.shard.write.TimeseriesModifier;
import dev.shardstore.shard.write.DocumentUpdater;
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
import dev.shardstore.shard.storage.OplogEntry;
import dev.shardstore.shard.storage.SessionHistory;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code update}: {@code {update: <coll>, updates: [{q, u, upsert?, multi?, arrayFilters?, c?, sort?, collation?}, ...],
 * ordered?, let?}} → {@code {n, nModified, upserted?: [{index, _id}], writeErrors?, ok: 1}}. {@code u} is a
 * replacement, an operator document or a pipeline; {@code let} defines variables for every statement's
 * {@code $expr} and pipeline, {@code c} constants for one statement's pipeline; {@code sort} picks which document a
 * single-document statement updates (refused with {@code multi: true}); {@code collation} is how the statement
 * compares strings ({@link UpdateStatement}; refused on a time-series collection). {@code n} counts matched
 * and upserted documents. A malformed statement (not a document, {@code q} or {@code u} missing) fails
 * the command with an error naming it ({@code updates.2.q}); a statement that fails when run is a
 * write error, and an ordered batch stops there. See {@link DocumentUpdater}. With {@code lsid} and {@code txnNumber} it
 * is a retryable write ({@link RetryableWrites}); a {@code multi: true} statement is then the write error
 * InvalidOptions (72) "Cannot use (or request) retryable writes with multi=true", as in MongoDB.
 * On a time-series collection each statement works on measurements ({@link TimeseriesModifier}).
 */
@Component
public class UpdateCommand extends StatementWriteCommand<UpdateStatement> {
    private final DocumentUpdater updater;
    private final TimeseriesModifier modifier;

    public UpdateCommand(CommandInvoker invoker, DocumentUpdater updater, RetryableWrites retryable, TimeseriesModifier modifier,
            TimeseriesCollections timeseries, CollectionCatalog catalog) {
        super(invoker, retryable, timeseries, catalog);
        this.updater = updater;
        this.modifier = modifier;
    }

    @Override
    public String name() {
        return "update";
    }

    @Override
    protected UpdateStatement parse(CommandArgs args, BsonDocument entry, String path, Collation collation) {
        return new UpdateStatement(
                args.document(args.required(entry, "q", path + ".q"), path + ".q"),
                args.required(entry, "u", path + ".u"),
                args.optionalBoolean(entry, "upsert", path + ".upsert", false),
                args.optionalBoolean(entry, "multi", path + ".multi", false),
                arrayFilters(entry.get("arrayFilters"), path + ".arrayFilters"),
                entry.get("c"),
                entry.get("hint"),
                entry.containsKey("sort") && !entry.isNull("sort") ? args.document(entry.get("sort"), path + ".sort") : null,
                collation);
    }

    @Override
    protected Optional<String> refusedInRetryableWrite(UpdateStatement statement) {
        return statement.multi() ? Optional.of("multi=true") : Optional.empty();
    }

    @Override
    protected StatementOutcome onDocuments(OperationContext opCtx, Namespace ns, UpdateStatement statement, CommandVariables variables, String path) {
        return updater.update(opCtx, ns, statement, variables, path);
    }

    @Override
    protected StatementOutcome onMeasurements(OperationContext opCtx, CollectionInfo buckets, TimeseriesOptions options, UpdateStatement statement,
            CommandVariables variables, String path) {
        return modifier.update(opCtx, buckets, options, statement, variables, path);
    }

    @Override
    protected BsonDocument reply(WriteResult result) {
        return result.toUpdateReply();
    }

    /**
     * The outcome of a retryable update statement that already ran, from its oplog entry: an update matched and changed
     * one document; an insert was an upsert of the inserted document's {@code _id}.
     */
    @Override
    protected StatementOutcome replayed(SessionHistory.ExecutedStatement executed) {
        return executed.op() == OplogEntry.Op.INSERT ? new StatementOutcome(0, 0,
                Objects.requireNonNull(executed.o(), "an insert's oplog entry holds the document").get("_id"), null)
                : new StatementOutcome(1, 1, null, null);
    }

    /**
     * An optional {@code arrayFilters} field (also findAndModify's): its entries, or none when absent or null.
     *
     * @throws CommandException TypeMismatch (14) when it is not an array
     */
    static List<BsonValue> arrayFilters(@Nullable BsonValue value, String path) {
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            throw new CommandException(ErrorCode.TypeMismatch, path + " must be an array, not " + value.getBsonType().name().toLowerCase());
        }
        return value.asArray().getValues();
    }
}
