package dev.shardstore.cluster;

import dev.shardstore.cluster.router.RouterClient;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Adds the cluster's shards to the catalog through a router, as an operator would with
 * {@code addShard}; shards that {@code listShards} already shows are left alone, so it is safe to
 * run on every start.
 */
final class ShardRegistrar {
    private final RouterClient router;

    ShardRegistrar(RouterClient router) {
        this.router = router;
    }

    /**
     * Registers each of {@code shards} that is not registered yet. A catalog that lists a shard this start does not run
     * (the home was created with more shards) is refused: databases could get that shard as their primary, and every
     * write to them would fail with HostUnreachable.
     *
     * @return the names of the shards it added
     * @throws dev.shardstore.cluster.router.RouterException when the router cannot be reached or refuses
     * @throws StartupException naming the missing shards, the {@code --shards} to use and {@code ./cluster down --purge}
     */
    List<String> register(List<Component> shards) {
        BsonDocument listed = RouterClient.requireOk("listShards on " + router.url(),
                router.run("admin", new BsonDocument("listShards", new BsonInt32(1))));
        Set<String> known = listed.getArray("shards", new BsonArray()).stream()
                .filter(BsonValue::isDocument)
                .map(s -> s.asDocument().getString("_id", new BsonString("")).getValue())
                .collect(Collectors.toSet());
        Set<String> planned = shards.stream().map(Component::name).collect(Collectors.toSet());
        List<String> notStarted = known.stream().filter(name -> !planned.contains(name)).sorted().toList();
        if (!notStarted.isEmpty()) {
            throw new StartupException("this cluster's catalog lists " + String.join(", ", notStarted) + ", which a start with --shards "
                    + shards.size() + " does not run: start it with --shards " + (shards.size() + notStarted.size())
                    + ", or remove its data with ./cluster down --purge and start afresh");
        }
        List<Component> missing = shards.stream().filter(s -> !known.contains(s.name())).toList();
        for (Component shard : missing) {
            BsonDocument addShard = new BsonDocument("addShard", new BsonString(shard.url()))
                    .append("name", new BsonString(shard.name()));
            RouterClient.requireOk("addShard " + shard.name() + " (" + shard.url() + ") on " + router.url(), router.run("admin", addShard));
        }
        return missing.stream().map(Component::name).toList();
    }
}
