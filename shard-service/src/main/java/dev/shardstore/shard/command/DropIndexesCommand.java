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
import org.bson.BsonValue;
import dev.shardstore.shard.versioning.CollectionAccess;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code dropIndexes}: {@code {dropIndexes: <coll>, index: <name> | <key pattern> | "*" | [names]}}
 * → {@code {nIndexesWas, ok}}. {@code "*"} drops every index but {@code _id_}; {@code _id_} itself cannot
 * be dropped (InvalidOptions, 72); an unknown index is IndexNotFound (27) and drops nothing; a key pattern that
 * several indexes (with different collations) have is AmbiguousIndexKeyPattern (296).
 */
@Component
public class DropIndexesCommand extends ShardCommand {
    private final CollectionCatalog catalog;
    private final IndexCatalog indexes;

    public DropIndexesCommand(CommandInvoker invoker, CollectionCatalog catalog, IndexCatalog indexes) {
        super(invoker);
        this.catalog = catalog;
        this.indexes = indexes;
    }

    @Override
    public String name() {
        return "dropIndexes";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.EXCLUSIVE;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        Namespace ns = new Namespace(db, new CommandArgs(command).collectionName());
        BsonValue index = command.get("index");
        if (index == null) {
            throw new CommandException(ErrorCode.BadValue, "dropIndexes requires 'index'");
        }
        CollectionInfo c = catalog.find(ns)
                .orElseThrow(() -> new CommandException(ErrorCode.NamespaceNotFound, "ns not found " + ns.full()));
        List<IndexSpec> all = indexes.list(c);
        int was = all.size() + 1;
        List<IndexSpec> toDrop = new ArrayList<>();
        if (index.isString() && index.asString().getValue().equals("*")) {
            toDrop.addAll(all);
        } else if (index.isString()) {
            toDrop.add(byName(c, index.asString().getValue()));
        } else if (index.isArray()) {
            for (BsonValue name : index.asArray()) {
                if (!name.isString()) {
                    throw new CommandException(ErrorCode.TypeMismatch, "dropIndexes 'index' array must hold index names");
                }
                toDrop.add(byName(c, name.asString().getValue()));
            }
        } else if (index.isDocument()) {
            if (index.asDocument().equals(new BsonDocument("_id", new BsonInt32(1)))) {
                throw new CommandException(ErrorCode.InvalidOptions, "cannot drop _id index");
            }
            List<IndexSpec> matching = all.stream().filter(i -> i.key().equals(IndexSpec.normalizeKey(index.asDocument()))).toList();
            if (matching.isEmpty()) {
                throw new CommandException(ErrorCode.IndexNotFound, "can't find index with key: " + index.asDocument().toJson());
            }
            if (matching.size() > 1) { // one key pattern under several collations: MongoDB's error
                throw new CommandException(ErrorCode.AmbiguousIndexKeyPattern, matching.size() + " indexes found for key: "
                        + index.asDocument().toJson() + ", identify by name instead. Conflicting indexes: "
                        + matching.stream().map(IndexSpec::name).toList());
            }
            toDrop.add(matching.getFirst());
        } else {
            throw new CommandException(ErrorCode.TypeMismatch, "dropIndexes 'index' must be a string, document or array");
        }
        toDrop.forEach(i -> indexes.drop(opCtx, c, i));
        return Replies.ok(new BsonDocument("nIndexesWas", new BsonInt32(was)));
    }

    private IndexSpec byName(CollectionInfo c, String name) {
        if (name.equals("_id_")) {
            throw new CommandException(ErrorCode.InvalidOptions, "cannot drop _id index");
        }
        return indexes.find(c, name)
                .orElseThrow(() -> new CommandException(ErrorCode.IndexNotFound, "index not found with name [" + name + "]"));
    }
}
