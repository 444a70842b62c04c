package dev.shardstore.shard.command;

import dev.shardstore.shard.storage.CollectionCollation;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.CommandArgs;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import dev.shardstore.shard.versioning.CollectionAccess;
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
public class DeleteCommand extends ShardCommand {
    private final DocumentDeleter deleter;
    private final RetryableWrites retryable;
    private final TimeseriesModifier modifier;
    private final TimeseriesCollections timeseries;
    private final CollectionCatalog catalog;

    public DeleteCommand(CommandInvoker invoker, DocumentDeleter deleter, RetryableWrites retryable, TimeseriesModifier modifier,
            TimeseriesCollections timeseries, CollectionCatalog catalog) {
        super(invoker);
        this.modifier = modifier;
        this.timeseries = timeseries;
        this.catalog = catalog;
        this.deleter = deleter;
        this.retryable = retryable;
    }

    @Override
    protected boolean servesTimeseries() {
        return true;
    }

    @Override
    public String name() {
        return "delete";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.WRITE;
    }

    @Override
    protected BsonDocument execute(String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        BsonArray array = args.requiredBatch("deletes");
        List<DeleteStatement> statements = new ArrayList<>(array.size());
        Optional<CollectionInfo> collection = catalog.find(ns); // its default collation, for statements without one
        for (int i = 0; i < array.size(); i++) {
            String path = "deletes." + i;
            BsonDocument entry = args.document(array.get(i), path);
            BsonDocument q = args.document(args.required(entry, "q", path + ".q"), path + ".q");
            long limit = args.nonNegative(args.required(entry, "limit", path + ".limit"), path + ".limit");
            if (limit > 1) {
                throw new CommandException(ErrorCode.FailedToParse,
                        "The limit field in delete objects must be 0 or 1. Got " + limit + " in " + path + ".limit");
            }
            statements.add(new DeleteStatement(q, limit == 1, entry.get("hint"),
                    CollectionCollation.effective("delete." + path + ".collation", entry.get("collation"), collection)));
        }
        boolean ordered = args.optionalBoolean(command, "ordered", "ordered", true);
        CommandVariables variables = CommandVariables.parse(command.get("let"), "let");
        boolean retryableWrite = RetryableWrites.retryable(command).isPresent();
        Optional<CollectionInfo> buckets = timeseries.buckets(ns);
        TimeseriesOptions options = buckets.flatMap(TimeseriesCollections::optionsOf).orElse(null);
        return retryable.run(command, statements.size(), ordered,
                i -> retryableWrite && !statements.get(i).justOne() ? RetryableWrites.refusedMulti("limit=0")
                        : buckets.isPresent() ? modifier.delete(buckets.get(), options, statements.get(i), variables, "deletes." + i)
                        : deleter.delete(ns, statements.get(i), variables),
                RetryableWrites::oneDocument).toReply();
    }
}
