package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.IndexCatalog;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import dev.shardstore.shard.versioning.CollectionAccess;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code drop}: {@code {drop: <coll>}} → {@code {nIndexesWas, ns, ok: 1}}, or {@code {ok: 1}}
 * when the collection does not exist (MongoDB 7.0+). A time-series collection is dropped with its buckets. See
 * {@link CollectionDropper}.
 */
@Component
public class DropCommand extends ShardCommand {
    private final CollectionDropper dropper;
    private final CollectionCatalog catalog;
    private final IndexCatalog indexes;

    public DropCommand(CommandInvoker invoker, CollectionDropper dropper, CollectionCatalog catalog, IndexCatalog indexes) {
        super(invoker);
        this.dropper = dropper;
        this.catalog = catalog;
        this.indexes = indexes;
    }

    @Override
    public String name() {
        return "drop";
    }

    @Override
    protected boolean servesTimeseries() {
        return true;
    }

    /** A view is dropped like a collection: its catalog entry goes. */
    @Override
    protected boolean servesViews() {
        return true;
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.EXCLUSIVE;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        Namespace ns = new Namespace(db, new CommandArgs(command).collectionName());
        int indexCount = catalog.find(ns).map(c -> indexes.list(c).size() + 1).orElse(1);
        return dropper.drop(opCtx, ns)
                ? Replies.ok(new BsonDocument("nIndexesWas", new BsonInt32(indexCount)).append("ns", new BsonString(ns.full())))
                : Replies.ok();
    }
}
