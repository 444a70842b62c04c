package dev.shardstore.shard.command;

import dev.shardstore.shard.write.RetryableWrites;
import dev.shardstore.shard.write.TimeseriesInserter;
import dev.shardstore.shard.write.DocumentInserter;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.session.OperationSessionInfo;
import dev.shardstore.shard.versioning.OperationShardingState;
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
 * MongoDB's {@code insert}: {@code {insert: <coll>, documents: [<doc>, ...], ordered: <bool, default true>}}
 * → {@code {n, writeErrors?: [{index, code, errmsg, ...}], ok: 1}}. A non-document entry fails the
 * whole command (TypeMismatch naming {@code documents.<i>}); per-document problems are write errors
 * (see {@link DocumentInserter}). Creates the collection implicitly. Measurements for a time-series collection go
 * into its buckets ({@link TimeseriesInserter}). With {@code lsid} and {@code txnNumber} it is a retryable write
 * ({@link RetryableWrites#runInsert}): each document is a statement; a fresh batch is written in one transaction when
 * every document goes in, else document by document; one that ran is answered as inserted without being written
 * again; time-series collections refuse it (NotImplemented 238).
 */
@Component
public class InsertCommand extends ShardCommand {
    private final DocumentInserter inserter;
    private final TimeseriesInserter timeseriesInserter;
    private final TimeseriesCollections timeseries;
    private final RetryableWrites retryable;

    public InsertCommand(CommandInvoker invoker, DocumentInserter inserter, TimeseriesInserter timeseriesInserter,
            TimeseriesCollections timeseries, RetryableWrites retryable) {
        super(invoker);
        this.retryable = retryable;
        this.inserter = inserter;
        this.timeseriesInserter = timeseriesInserter;
        this.timeseries = timeseries;
    }

    @Override
    protected boolean servesTimeseries() {
        return true;
    }

    @Override
    public String name() {
        return "insert";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.WRITE;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        BsonArray array = args.requiredBatch("documents");
        List<BsonDocument> documents = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            documents.add(args.document(array.get(i), "documents." + i));
        }
        boolean ordered = args.optionalBoolean(command, "ordered", "ordered", true);
        Optional<CollectionInfo> buckets = timeseries.buckets(ns);
        Optional<OperationSessionInfo> session = RetryableWrites.retryable(opCtx);
        if (session.isPresent()) {
            // one statement per document, each with its stmtId
            List<BsonDocument> withIds = documents.stream().map(DocumentInserter::withIdFirst).toList();
            if (buckets.isPresent()) { // the bucket catalog checks ownership of each bucket it writes
                TimeseriesOptions options = TimeseriesCollections.optionsOf(opCtx, buckets.get()).orElseThrow();
                return retryable.runInsert(opCtx, session.get(), withIds.size(), ordered,
                        statementCtx -> timeseriesInserter.insert(statementCtx, buckets.get(), options, withIds, ordered),
                        (statementCtx, i) -> timeseriesInserter.insert(statementCtx, buckets.get(), options, List.of(withIds.get(i)), true)
                                .single()).toReply();
            }
            // every document is checked against the shard's chunks before any is written, as the batch path does
            withIds.forEach(doc -> OperationShardingState.checkInsert(opCtx, ns.full(), doc));
            return retryable.runInsert(opCtx, session.get(), withIds.size(), ordered,
                    statementCtx -> inserter.insert(statementCtx, ns, withIds, ordered),
                    (statementCtx, i) -> inserter.insert(statementCtx, ns, List.of(withIds.get(i)), true).single()).toReply();
        }
        if (buckets.isPresent()) {
            TimeseriesOptions options = TimeseriesCollections.optionsOf(opCtx, buckets.get()).orElseThrow();
            return timeseriesInserter.insert(opCtx, buckets.get(), options, documents, ordered).toReply();
        }
        return inserter.insert(opCtx, ns, documents, ordered).toReply();
    }
}
