package dev.shardstore.shard.command;

import dev.shardstore.shard.write.IndexCreator;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.springframework.stereotype.Component;

/**
 * Creates a time-series collection (MongoDB manual, "Create a Time Series Collection"), for {@code create} and for
 * {@code shardCollection} on a time-series namespace that does not exist yet (mongo/src/mongo/db/s/README_timeseries.md
 * "shardCollection command"): the buckets collection {@code system.buckets.<coll>} holding the normalized options
 * and an index on {@code {meta: 1, control.min.<t>: 1, control.max.<t>: 1}} (without {@code meta} when there is no
 * meta field), named {@code <meta>_1_<t>_1} as MongoDB names the index it creates on {@code {<meta>: 1, <t>: 1}}.
 */
@Component
class TimeseriesCreator {
    private final CollectionCatalog catalog;
    private final IndexCreator indexes;

    TimeseriesCreator(CollectionCatalog catalog, IndexCreator indexes) {
        this.catalog = catalog;
        this.indexes = indexes;
    }

    /**
     * Creates the time-series collection {@code ns} with {@code options} (the create options: {@code timeseries}
     * already normalized, {@code expireAfterSeconds?}); the same collection with the same options is a success.
     *
     * @return the buckets collection
     * @throws CommandException InvalidNamespace for a {@code system.} name; NamespaceExists (48) when a regular
     *                          collection has the name or the time-series collection exists with other options
     */
    CollectionInfo create(OperationContext opCtx, Namespace ns, TimeseriesOptions parsed, BsonDocument options) {
        if (ns.collection().startsWith("system.")) {
            throw new CommandException(ErrorCode.InvalidNamespace, "a time-series collection cannot be named '" + ns.collection() + "'");
        }
        if (catalog.find(ns).isPresent()) {
            throw exists(ns, "as a collection that is not time-series");
        }
        CollectionCatalog.Creation creation = catalog.create(opCtx, TimeseriesCollections.bucketsOf(ns), options);
        if (!creation.created() && !creation.collection().options().equals(options)) {
            throw exists(ns, "with different options: " + creation.collection().options().toJson());
        }
        if (creation.created()) {
            String t = parsed.timeField();
            BsonDocument key = new BsonDocument();
            if (parsed.metaField() != null) {
                key.append("meta", new BsonInt32(1));
            }
            key.append("control.min." + t, new BsonInt32(1)).append("control.max." + t, new BsonInt32(1));
            String name = (parsed.metaField() != null ? parsed.metaField() + "_1_" : "") + t + "_1";
            indexes.createAll(opCtx, creation.collection(), List.of(CreateIndexesCommand.validate(
                    new BsonDocument("key", key).append("name", new BsonString(name)))));
        }
        return creation.collection();
    }

    static CommandException exists(Namespace ns, String how) {
        return new CommandException(ErrorCode.NamespaceExists, "Collection " + ns.full() + " already exists " + how);
    }
}
