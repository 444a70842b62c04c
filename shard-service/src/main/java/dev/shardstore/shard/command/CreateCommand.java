package dev.shardstore.shard.command;

import dev.shardstore.contracts.bson.CommandArgs;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.command.CommandOptions;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.contracts.namespace.Namespace;
import org.bson.BsonDocument;
import dev.shardstore.shard.versioning.CollectionAccess;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code create}: {@code {create: <coll>, ...options}} → {@code {ok: 1}}. The options are
 * recorded and shown by listCollections. Creating an existing collection with the same options
 * succeeds (MongoDB 7.0+); with other options it is NamespaceExists (48). Options that change a
 * collection's behaviour this shard does not implement (capped, views, time series, validation, a collation
 * other than the simple one, clustered) are refused with NotImplemented (238) naming the option before the
 * command runs ({@link CommandOptions}), as is any field MongoDB does not document.
 */
@Component
public class CreateCommand extends ShardCommand {
    private final CollectionCatalog catalog;

    public CreateCommand(CommandInvoker invoker, CollectionCatalog catalog) {
        super(invoker);
        this.catalog = catalog;
    }

    @Override
    public String name() {
        return "create";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.WRITE;
    }

    @Override
    protected BsonDocument execute(String db, BsonDocument command) {
        Namespace ns = new Namespace(db, new CommandArgs(command).collectionName());
        BsonDocument options = new BsonDocument();
        command.forEach((field, value) -> {
            if (!field.equals("create") && !CommandOptions.isGeneric(field)) {
                options.append(field, value);
            }
        });
        CollectionCatalog.Creation creation = catalog.create(ns, options);
        if (!creation.created() && !creation.collection().options().equals(options)) {
            throw new CommandException(ErrorCode.NamespaceExists, "Collection " + ns.full() + " already exists with different options: "
                    + creation.collection().options().toJson());
        }
        return Replies.ok();
    }
}
