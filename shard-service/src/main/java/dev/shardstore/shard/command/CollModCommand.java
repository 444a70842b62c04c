package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.write.BucketCatalog;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import dev.shardstore.shard.versioning.CollectionAccess;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code collMod} on this shard's copy of a collection: {@code {collMod: <coll>, timeseries?:
 * {granularity} | {bucketMaxSpanSeconds, bucketRoundingSeconds}, expireAfterSeconds?: <seconds> | "off"}} →
 * {@code {ok: 1}}. Only time-series collections have options to change here: the bucketing
 * ({@link TimeseriesOptions#modifiedBy}: only ever coarser) and the TTL of their buckets; the other options MongoDB
 * documents are refused by the command option table before this runs. The options are stored on the buckets
 * collection and the bucket catalog forgets its open buckets, so the next inserts bucket by the new options.
 * A change that changes nothing (a collMod retried by the router) succeeds.
 *
 * <p>Errors: NamespaceNotFound (26) for a missing collection; InvalidOptions (72) for {@code timeseries} or
 * {@code expireAfterSeconds} on a collection that is not time-series (TTL of clustered collections is not
 * implemented), a negative or non-numeric {@code expireAfterSeconds}, and the bucketing rules' errors.
 */
@Component
public class CollModCommand extends ShardCommand {
    private final CollectionCatalog catalog;
    private final TimeseriesCollections timeseries;
    private final BucketCatalog buckets;

    public CollModCommand(CommandInvoker invoker, CollectionCatalog catalog, TimeseriesCollections timeseries, BucketCatalog buckets) {
        super(invoker);
        this.catalog = catalog;
        this.timeseries = timeseries;
        this.buckets = buckets;
    }

    @Override
    public String name() {
        return "collMod";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.EXCLUSIVE;
    }

    @Override
    protected boolean servesTimeseries() {
        return true;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        Namespace ns = new Namespace(db, new CommandArgs(command).collectionName());
        Optional<CollectionInfo> bucketsCollection = timeseries.buckets(ns);
        if (bucketsCollection.isEmpty()) {
            if (catalog.find(ns).isEmpty()) {
                throw new CommandException(ErrorCode.NamespaceNotFound, "ns does not exist: " + ns.full());
            }
            for (String option : new String[] {"timeseries", "expireAfterSeconds"}) {
                if (command.containsKey(option)) {
                    throw new CommandException(ErrorCode.InvalidOptions, "'collMod." + option + "' needs a time-series collection; "
                            + ns.full() + " is not one");
                }
            }
            return Replies.ok();
        }
        CollectionInfo collection = bucketsCollection.get();
        BsonDocument options = collection.options().clone();
        BsonDocument changes = new BsonDocument();
        if (command.containsKey("timeseries")) {
            TimeseriesOptions current = TimeseriesCollections.optionsOf(opCtx, collection).orElseThrow();
            BsonDocument modified = current.modifiedBy(command.get("timeseries"), "collMod.timeseries").toDocument();
            options.put("timeseries", modified);
            changes.put("timeseries", modified);
        }
        if (command.containsKey("expireAfterSeconds")) {
            BsonValue expire = command.get("expireAfterSeconds");
            if (expire.isString() && expire.asString().getValue().equals("off")) {
                options.remove("expireAfterSeconds");
            } else {
                options.put("expireAfterSeconds", new BsonInt64(CreateCommand.expireAfterSeconds(expire, "collMod.expireAfterSeconds")));
            }
            changes.put("expireAfterSeconds", expire);
        }
        if (!options.equals(collection.options())) {
            catalog.modify(opCtx, collection, options, changes);
            buckets.clear(collection.uuid()); // open buckets were sized by the old bucketing
        }
        return Replies.ok();
    }
}
