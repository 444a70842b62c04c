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
import java.util.function.Predicate;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.security.ActionType;
import dev.shardstore.support.security.ClientSecurityProperties;
import dev.shardstore.support.security.Principal;
import dev.shardstore.support.security.Resource;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * {@code listDatabases} as mongos answers it: every database of the catalog that the caller may see (with authorization on,
 * those it has privileges in unless it holds {@code listDatabases} on the cluster; {@code authorizedDatabases}) with its size summed over
 * the shards ({@code sizeOnDisk}), the per-shard sizes ({@code shards}), {@code empty}, and
 * {@code totalSize} / {@code totalSizeMb}. {@code nameOnly: true} skips asking the shards. Shards
 * are asked in parallel; one that does not answer fails the command with HostUnreachable naming it.
 */
@Component
public class ClusterListDatabasesCommand implements CommandHandler {
    private final ConfigServer config;
    private final ShardRegistry shards;
    private final PeerClient client;

    private final boolean authorizationEnforced;

    /** @param security whether authorization is on, which decides what a caller may list */
    public ClusterListDatabasesCommand(ConfigServer config, ShardRegistry shards, PeerClient client, ClientSecurityProperties security) {
        this.authorizationEnforced = security.enforced();
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
        CommandArgs args = new CommandArgs(command);
        Predicate<String> listed = listable(opCtx.caller().principal(), command.containsKey("authorizedDatabases")
                ? args.optionalBoolean(command, "authorizedDatabases", "authorizedDatabases", false) : null);
        BsonArray catalog = config.run("admin", new BsonDocument("_configsvrListDatabases", new BsonInt32(1))).getArray("databases");
        boolean nameOnly = args.optionalBoolean(command, "nameOnly", "nameOnly", false);
        Map<String, Map<String, Long>> sizes = nameOnly ? Map.of() : sizesByDatabaseAndShard();
        BsonArray databases = new BsonArray();
        long total = 0;
        for (BsonValue entry : catalog) {
            String name = entry.asDocument().getString("_id").getValue();
            if (!listed.test(name)) {
                continue;
            }
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

    /**
     * Which databases {@code principal} sees (MongoDB manual, "listDatabases", {@code authorizedDatabases}): with
     * authorization off, or with {@code listDatabases} on the cluster and {@code authorizedDatabases} not true, all;
     * otherwise those it has privileges in ({@link Principal#hasPrivilegeIn}).
     *
     * @param authorizedDatabases the command's option, null when not given
     * @throws CommandException Unauthorized (13) for a caller that is not authenticated, and for
     *                          {@code authorizedDatabases: false} without {@code listDatabases} on the cluster
     */
    private Predicate<String> listable(Principal principal, @Nullable Boolean authorizedDatabases) {
        if (!authorizationEnforced || principal.kind() == Principal.Kind.SYSTEM) {
            return name -> true;
        }
        if (!principal.authenticated()) {
            throw new CommandException(ErrorCode.Unauthorized, "command listDatabases requires authentication");
        }
        boolean mayListAll = principal.isAuthorized(Resource.CLUSTER, ActionType.listDatabases);
        if (Boolean.FALSE.equals(authorizedDatabases) && !mayListAll) {
            throw new CommandException(ErrorCode.Unauthorized, "not authorized on admin to execute command { listDatabases: 1 }"
                    + " with authorizedDatabases: false: needs action listDatabases on {\"cluster\": true}");
        }
        return mayListAll && !Boolean.TRUE.equals(authorizedDatabases) ? name -> true : principal::hasPrivilegeIn;
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
