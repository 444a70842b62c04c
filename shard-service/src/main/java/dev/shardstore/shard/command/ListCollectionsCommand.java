package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.cursor.Batch;
import dev.shardstore.shard.cursor.CursorManager;
import dev.shardstore.shard.cursor.ListCursor;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.shard.storage.CollectionCollation;
import dev.shardstore.shard.storage.CollectionInfo;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import java.util.function.UnaryOperator;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.UuidRepresentation;
import dev.shardstore.shard.view.ViewCatalog;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code listCollections}: {@code {listCollections: 1, filter?, nameOnly?, cursor?: {batchSize}}}
 * → a cursor (namespace {@code <db>.$cmd.listCollections}) of
 * {@code {name, type: "collection", options, info: {readOnly: false, uuid}, idIndex}} entries by name,
 * or {@code {name, type}} with {@code nameOnly}. A view is {@code {name, type: "view", options: {viewOn, pipeline}, info:
 * {readOnly: true}}}. The filter applies to the full entries. A time-series collection is
 * listed as {@code {name, type: "timeseries", options: {timeseries, expireAfterSeconds?}, info: {readOnly: false}}}
 * next to its buckets collection {@code system.buckets.<name>}, as MongoDB lists both.
 */
@Component
public class ListCollectionsCommand extends ShardCommand {
    private final CollectionCatalog catalog;
    private final CursorManager cursors;

    public ListCollectionsCommand(CommandInvoker invoker, CollectionCatalog catalog, CursorManager cursors) {
        super(invoker);
        this.catalog = catalog;
        this.cursors = cursors;
    }

    @Override
    public String name() {
        return "listCollections";
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Filter filter = Filter.parse(args.optionalDocument(command, "filter", "filter"));
        boolean nameOnly = args.optionalBoolean(command, "nameOnly", "nameOnly", false);
        BsonDocument cursorOptions = args.optionalDocument(command, "cursor", "cursor");
        long batchSize = cursorOptions.containsKey("batchSize")
                ? args.nonNegative(cursorOptions.get("batchSize"), "cursor.batchSize")
                : FindCommand.DEFAULT_BATCH_SIZE;
        List<BsonDocument> entries = catalog.list(db).stream()
                .flatMap(c -> TimeseriesCollections.isBuckets(c) ? Stream.of(entry(c), timeseriesEntry(c)) : Stream.of(entry(c)))
                .sorted(Comparator.comparing(entry -> entry.getString("name").getValue()))
                .filter(filter::matches).toList();
        UnaryOperator<BsonDocument> shape = nameOnly
                ? entry -> new BsonDocument("name", entry.get("name")).append("type", entry.get("type"))
                : UnaryOperator.identity();
        String ns = db + ".$cmd.listCollections";
        ListCursor cursor = new ListCursor(entries, shape);
        Batch first = cursor.next(opCtx, batchSize);
        long id = first.exhausted() ? 0 : cursors.register(opCtx, ns, null, cursor);
        return Replies.cursor(true, first.documents(), id, ns);
    }

    /** The time-series collection whose buckets are {@code buckets}, as MongoDB lists it: its options without the rest. */
    private static BsonDocument timeseriesEntry(CollectionInfo buckets) {
        BsonDocument options = new BsonDocument("timeseries", buckets.options().get("timeseries"));
        if (buckets.options().containsKey("expireAfterSeconds")) {
            options.append("expireAfterSeconds", buckets.options().get("expireAfterSeconds"));
        }
        String name = buckets.namespace().collection().substring(TimeseriesCollections.BUCKETS_PREFIX.length());
        return new BsonDocument("name", new BsonString(name))
                .append("type", new BsonString("timeseries"))
                .append("options", options)
                .append("info", new BsonDocument("readOnly", BsonBoolean.FALSE));
    }

    private static BsonDocument entry(CollectionInfo collection) {
        if (ViewCatalog.isView(collection.options())) {
            return new BsonDocument("name", new BsonString(collection.namespace().collection()))
                    .append("type", new BsonString("view"))
                    .append("options", collection.options().clone())
                    .append("info", new BsonDocument("readOnly", BsonBoolean.TRUE));
        }
        BsonDocument idIndex = new BsonDocument("v", new BsonInt32(2))
                .append("key", new BsonDocument("_id", new BsonInt32(1)))
                .append("name", new BsonString("_id_"));
        Collation collation = CollectionCollation.defaultOf(collection);
        if (!collation.isSimple()) { // the _id index has the collection's default collation
            idIndex.append(CollectionCollation.OPTION, collation.toDocument());
        }
        return new BsonDocument("name", new BsonString(collection.namespace().collection()))
                .append("type", new BsonString("collection"))
                .append("options", collection.options().clone())
                .append("info", new BsonDocument("readOnly", BsonBoolean.FALSE)
                        .append("uuid", new BsonBinary(collection.uuid(), UuidRepresentation.STANDARD)))
                .append("idIndex", idIndex);
    }
}
