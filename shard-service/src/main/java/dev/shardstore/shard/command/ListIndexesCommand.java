package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.IndexCatalog;
import dev.shardstore.shard.storage.IndexSpec;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import dev.shardstore.shard.versioning.CollectionAccess;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code listIndexes}: {@code {listIndexes: <coll>}} → a cursor (namespace {@code db.coll}) of
 * {@code {v: 2, key, name, unique?, sparse?, partialFilterExpression?, collation?}} (an index's full collation spec when it is not
 * simple), {@code _id_} first (with the collection's default collation, which it has); all in the
 * first batch. A missing collection is NamespaceNotFound (26).
 */
@Component
public class ListIndexesCommand extends ShardCommand {
    private final CollectionCatalog catalog;
    private final IndexCatalog indexes;

    public ListIndexesCommand(CommandInvoker invoker, CollectionCatalog catalog, IndexCatalog indexes) {
        super(invoker);
        this.catalog = catalog;
        this.indexes = indexes;
    }

    @Override
    public String name() {
        return "listIndexes";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.READ;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        Namespace ns = new Namespace(db, new CommandArgs(command).collectionName());
        CollectionInfo c = catalog.find(ns)
                .orElseThrow(() -> new CommandException(ErrorCode.NamespaceNotFound, "ns does not exist: " + ns.full()));
        List<BsonDocument> entries = new ArrayList<>();
        entries.add(indexes.idIndex(c).map(IndexSpec::listEntry).orElseGet(() -> new BsonDocument("v", new BsonInt32(2))
                .append("key", new BsonDocument("_id", new BsonInt32(1))).append("name", new BsonString(IndexSpec.ID_INDEX_NAME))));
        entries.addAll(indexes.listEntries(c));
        return Replies.cursor(true, entries, 0, ns.full());
    }
}
