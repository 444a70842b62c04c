package dev.shardstore.shard.command;

import dev.shardstore.shard.storage.CollectionCollation;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.CommandArgs;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.storage.OplogEntry;
import dev.shardstore.shard.storage.SessionHistory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import dev.shardstore.shard.versioning.CollectionAccess;
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
public class UpdateCommand extends ShardCommand {
    private final DocumentUpdater updater;
    private final RetryableWrites retryable;
    private final TimeseriesModifier modifier;
    private final TimeseriesCollections timeseries;
    private final CollectionCatalog catalog;

    public UpdateCommand(CommandInvoker invoker, DocumentUpdater updater, RetryableWrites retryable, TimeseriesModifier modifier,
            TimeseriesCollections timeseries, CollectionCatalog catalog) {
        super(invoker);
        this.modifier = modifier;
        this.timeseries = timeseries;
        this.catalog = catalog;
        this.updater = updater;
        this.retryable = retryable;
    }

    @Override
    protected boolean servesTimeseries() {
        return true;
    }

    @Override
    public String name() {
        return "update";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.WRITE;
    }

    @Override
    protected BsonDocument execute(String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        BsonArray array = args.requiredBatch("updates");
        List<UpdateStatement> statements = new ArrayList<>(array.size());
        Optional<CollectionInfo> collection = catalog.find(ns); // its default collation, for statements without one
        for (int i = 0; i < array.size(); i++) {
            String path = "updates." + i;
            BsonDocument entry = args.document(array.get(i), path);
            statements.add(new UpdateStatement(
                    args.document(args.required(entry, "q", path + ".q"), path + ".q"),
                    args.required(entry, "u", path + ".u"),
                    args.optionalBoolean(entry, "upsert", path + ".upsert", false),
                    args.optionalBoolean(entry, "multi", path + ".multi", false),
                    arrayFilters(entry.get("arrayFilters"), path + ".arrayFilters"),
                    entry.get("c"),
                    entry.get("hint"),
                    entry.containsKey("sort") && !entry.isNull("sort") ? args.document(entry.get("sort"), path + ".sort") : null,
                    CollectionCollation.effective("update." + path + ".collation", entry.get("collation"), collection)));
        }
        boolean ordered = args.optionalBoolean(command, "ordered", "ordered", true);
        CommandVariables variables = CommandVariables.parse(command.get("let"), "let");
        boolean retryableWrite = RetryableWrites.retryable(command).isPresent();
        Optional<CollectionInfo> buckets = timeseries.buckets(ns);
        TimeseriesOptions options = buckets.flatMap(TimeseriesCollections::optionsOf).orElse(null);
        return retryable.run(command, statements.size(), ordered,
                i -> retryableWrite && statements.get(i).multi() ? RetryableWrites.refusedMulti("multi=true")
                        : buckets.isPresent() ? modifier.update(buckets.get(), options, statements.get(i), variables, "updates." + i)
                        : updater.update(ns, statements.get(i), variables, "updates." + i),
                UpdateCommand::replayed).toUpdateReply();
    }

    /**
     * The outcome of a retryable update statement that already ran, from its oplog entry: an update matched and changed
     * one document; an insert was an upsert of the inserted document's {@code _id}.
     */
    private static StatementOutcome replayed(SessionHistory.ExecutedStatement executed) {
        return executed.op() == OplogEntry.Op.INSERT ? new StatementOutcome(0, 0, executed.o().get("_id"), null)
                : new StatementOutcome(1, 1, null, null);
    }

    /**
     * An optional {@code arrayFilters} field (also findAndModify's): its entries, or none when absent or null.
     *
     * @throws CommandException TypeMismatch (14) when it is not an array
     */
    static List<BsonValue> arrayFilters(BsonValue value, String path) {
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            throw new CommandException(ErrorCode.TypeMismatch, path + " must be an array, not " + value.getBsonType().name().toLowerCase());
        }
        return value.asArray().getValues();
    }
}
