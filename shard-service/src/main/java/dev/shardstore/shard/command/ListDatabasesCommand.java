package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.DatabaseSize;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code listDatabases} on {@code admin}: {@code {listDatabases: 1, filter?, nameOnly?}} →
 * {@code {databases: [{name, sizeOnDisk, empty}], totalSize, totalSizeMb, ok: 1}} (with {@code nameOnly}:
 * {@code {databases: [{name}], ok: 1}}). A database appears once it has a collection on this shard;
 * sizes are its tables' {@code pg_total_relation_size} in bytes. The config service picks the shard
 * with the smallest {@code totalSize} as a new database's primary. Not version-checked.
 */
@Component
public class ListDatabasesCommand extends ShardCommand {
    private static final long MIB = 1024 * 1024;

    private final CollectionCatalog catalog;

    public ListDatabasesCommand(CommandInvoker invoker, CollectionCatalog catalog) {
        super(invoker);
        this.catalog = catalog;
    }

    @Override
    public String name() {
        return "listDatabases";
    }

    @Override
    protected boolean checksDatabaseVersion() {
        return false;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        if (!db.equals("admin")) {
            throw new CommandException(ErrorCode.IllegalOperation, "listDatabases may only be run against the admin database.");
        }
        CommandArgs args = new CommandArgs(command);
        Filter filter = Filter.parse(args.optionalDocument(command, "filter", "filter"));
        boolean nameOnly = args.optionalBoolean(command, "nameOnly", "nameOnly", false);
        BsonArray databases = new BsonArray();
        long totalSize = 0;
        for (DatabaseSize size : catalog.databaseSizes()) {
            BsonDocument entry = new BsonDocument("name", new BsonString(size.name()))
                    .append("sizeOnDisk", new BsonInt64(size.sizeOnDisk()))
                    .append("empty", BsonBoolean.valueOf(size.empty()));
            if (filter.matches(entry)) {
                databases.add(nameOnly ? new BsonDocument("name", entry.get("name")) : entry);
                totalSize += size.sizeOnDisk();
            }
        }
        BsonDocument reply = new BsonDocument("databases", databases);
        if (!nameOnly) {
            reply.append("totalSize", new BsonInt64(totalSize)).append("totalSizeMb", new BsonInt64(totalSize / MIB));
        }
        return Replies.ok(reply);
    }
}
