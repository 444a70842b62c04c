package dev.shardstore.router.command;

import dev.shardstore.router.write.BatchedWrite;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.engine.timeseries.Bucket;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.VersionedRouter;
import dev.shardstore.support.command.CommandHandler;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.springframework.stereotype.Component;

/**
 * {@code insert} (MongoDB's shape: {@code {insert: coll, documents: [...], ordered: true}} →
 * {@code {n, writeErrors?, ok: 1}}).
 *
 * <p>The whole command is refused before anything is written when {@code documents} is not a
 * non-empty array of at most 100,000 documents (the error names the offending index). A document
 * without {@code _id} gets an ObjectId placed first, here rather than on the shard, so routing by
 * {@code _id} sees it. A document over 16 MiB becomes a {@code BSONObjectTooLarge} (10334) write
 * error at its index.
 *
 * <p>On a sharded time-series collection (its buckets collection is sharded) each measurement goes to the shard
 * owning the shard key of the bucket it would open: its meta value and its time rounded down to
 * {@code bucketRoundingSeconds}, as {@code control.min.<timeField>} will be ({@link Bucket#routingDocument}); a
 * measurement without a date time field is a BadValue write error at its index.
 *
 * <p>On a sharded collection each document goes to the shard owning its shard key's chunk; a document whose
 * shard key cannot be extracted (an array value) is a {@code ShardKeyNotFound} (61) write error at its index.
 * Ordering and index mapping follow {@link BatchedWrite}: with {@code ordered: true} nothing after the first
 * error in document order is written.
 */
@Component
public class ClusterInsertCommand implements CommandHandler {
    private final VersionedRouter router;

    public ClusterInsertCommand(VersionedRouter router) {
        this.router = router;
    }

    @Override
    public String name() {
        return "insert";
    }

    @Override
    public BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
        Namespaces.checkUserDatabase(db, "insert");
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        List<RawBsonDocument> documents = documents(args);
        boolean ordered = args.optionalBoolean(command, "ordered", "ordered", true);
        BatchedWrite write = new BatchedWrite(router, db, collection, command, "documents", documents, ordered, false, ClusterInsertCommand::target);
        for (int i = 0; i < documents.size(); i++) {
            int size = BsonBytes.size(documents.get(i));
            if (size > BsonBytes.MAX_DOCUMENT_SIZE) {
                write.reject(i, ErrorCode.BSONObjectTooLarge,
                        "document at index " + i + " is " + size + " bytes, over the limit of " + BsonBytes.MAX_DOCUMENT_SIZE);
            }
        }
        return write.execute(opCtx, true).orElseThrow();
    }

    private static BatchedWrite.Target target(CollectionRouting routing, int index, BsonValue statement) {
        RoutingTable table = routing.table();
        if (table == null) {
            return BatchedWrite.Target.to(List.of(routing.database().primary()));
        }
        TimeseriesOptions timeseries = table.collection().timeseriesFields();
        try {
            // a measurement goes where the bucket it would open belongs (its meta and rounded time)
            BsonDocument keySource = timeseries == null ? statement.asDocument() : Bucket.routingDocument(timeseries, statement.asDocument());
            return BatchedWrite.Target.to(List.of(table.chunkFor(keySource).shard()));
        } catch (CommandException e) {
            return BatchedWrite.Target.failed(index, e.code(), "document at index " + index + ": " + e.getMessage());
        }
    }

    /** Every entry of {@code documents}, each a document (given an {@code _id}), or the whole command is refused naming the index. */
    private static List<RawBsonDocument> documents(CommandArgs args) {
        BsonArray batch = args.requiredBatch("documents");
        List<RawBsonDocument> docs = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            docs.add(BsonBytes.toRaw(BatchedWrite.withId(args.document(batch.get(i), "documents." + i))));
        }
        return docs;
    }
}
