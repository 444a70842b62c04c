package dev.shardstore.router.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.router.peer.PeerClient;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.router.routing.ShardRegistry;
import dev.shardstore.support.command.CommandHandler;
import java.util.HashMap;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * {@code listDatabases} as mongos answers it: every database of the catalog with its size summed over
 * the shards ({@code sizeOnDisk}), the per-shard sizes ({@code shards}), {@code empty}, and
 * {@code totalSize} / {@code totalSizeMb}. {@code nameOnly: true} skips asking the shards. Shards
 * are asked in parallel; one that does not answer fails the command with HostUnreachable naming it.
 */
@Component
public class ClusterListDatabasesCommand implements CommandHandler {
    private final ConfigServer config;
    private final ShardRegistry shards;
    private final PeerClient client;

    public ClusterListDatabasesCommand(ConfigServer config, ShardRegistry shards, PeerClient client) {
        this.config = config;
        this.shards = shards;
        this.client = client;
    }

    @Override
    public String name() {
        return "listDatabases";
    }

    @Override
    public BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
        Namespaces.checkAdmin(db, "listDatabases");
        BsonArray catalog = config.run("admin", new BsonDocument("_configsvrListDatabases", new BsonInt32(1))).getArray("databases");
        boolean nameOnly = new CommandArgs(command).optionalBoolean(command, "nameOnly", "nameOnly", false);
        Map<String, Map<String, Long>> sizes = nameOnly ? Map.of() : sizesByDatabaseAndShard();
        BsonArray databases = new BsonArray();
        long total = 0;
        for (BsonValue entry : catalog) {
            String name = entry.asDocument().getString("_id").getValue();
            if (nameOnly) {
                databases.add(new BsonDocument("name", new BsonString(name)));
                continue;
            }
            Map<String, Long> perShard = sizes.getOrDefault(name, Map.of());
            long size = perShard.values().stream().mapToLong(Long::longValue).sum();
            total += size;
            BsonDocument shardSizes = new BsonDocument();
            perShard.forEach((shard, bytes) -> shardSizes.append(shard, new BsonInt64(bytes)));
            databases.add(new BsonDocument("name", new BsonString(name))
                    .append("sizeOnDisk", new BsonInt64(size))
                    .append("empty", BsonBoolean.valueOf(size == 0))
                    .append("shards", shardSizes));
        }
        BsonDocument reply = new BsonDocument("databases", databases);
        if (!nameOnly) {
            reply.append("totalSize", new BsonInt64(total)).append("totalSizeMb", new BsonInt64(total / (1024 * 1024)));
        }
        return Replies.ok(reply);
    }

    private Map<String, Map<String, Long>> sizesByDatabaseAndShard() {
        Map<String, Map<String, Long>> sizes = new HashMap<>();
        shards.all().entrySet().parallelStream()
                .map(shard -> Map.entry(shard.getKey(), client.runChecked(shard.getKey(), shard.getValue(), "admin",
                        new BsonDocument("listDatabases", new BsonInt32(1))).getArray("databases")))
                .toList()
                .forEach(shardDbs -> shardDbs.getValue().forEach(d -> sizes
                        .computeIfAbsent(d.asDocument().getString("name").getValue(), k -> new java.util.TreeMap<>())
                        .put(shardDbs.getKey(), d.asDocument().getNumber("sizeOnDisk").longValue())));
        return sizes;
    }
}
