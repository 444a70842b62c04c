package dev.shardstore.balancer.cluster;

import dev.shardstore.balancer.policy.ActiveWindow;
import dev.shardstore.balancer.policy.BalancerSettings;
import dev.shardstore.balancer.policy.ClusterSnapshot;
import dev.shardstore.balancer.policy.CollectionState;
import dev.shardstore.balancer.policy.ShardState;
import dev.shardstore.balancer.policy.ZoneRange;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.http.CommandClient;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.support.ServiceSupportProperties;
import java.time.LocalTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * Reads what a round decides from, MongoDB's ClusterStatistics (reference: "Auto-balancing"): {@code config.settings},
 * {@code config.shards}, {@code config.collections}, {@code config.chunks} and {@code config.tags} from the config
 * service ({@code find} on the config database), and each shard's owned bytes of each collection
 * ({@code _shardsvrDataDistribution}). Each call reads afresh; nothing is cached between rounds.
 */
@Component
public class ClusterStatistics {
    private static final String CONFIG = "config";
    /** MongoDB's {@code config.shards} state of a draining shard. */
    private static final int DRAINING = 2;
    private final CommandClient client;
    private final String configUrl;

    public ClusterStatistics(CommandClient client, ServiceSupportProperties properties) {
        this.client = client;
        this.configUrl = properties.configUrl();
    }

    /**
     * The whole cluster as of now.
     *
     * @throws CommandException HostUnreachable / NetworkTimeout when the config service does not answer; a shard that
     *                          does not answer only leaves its data sizes out (the data-size policy then skips it)
     */
    public ClusterSnapshot snapshot() {
        BalancerSettings settings = settings();
        List<BsonDocument> shardDocs = find("shards", new BsonDocument());
        List<ShardState> shards = shardDocs.stream().map(ClusterStatistics::shard).toList();
        Map<String, String> hosts = new HashMap<>();
        shardDocs.forEach(doc -> hosts.put(doc.getString("_id").getValue(), doc.getString("host").getValue()));
        List<CollectionState> collections = find("collections", new BsonDocument()).stream().map(ShardedCollection::fromBson)
                .map(collection -> collection(collection, hosts, settings)).toList();
        return new ClusterSnapshot(shards, collections, settings, LocalTime.now());
    }

    /** One collection's state, for {@code balancerCollectionStatus}; empty when it is not sharded. */
    public Optional<CollectionState> collection(String namespace, BalancerSettings settings) {
        Map<String, String> hosts = new HashMap<>();
        find("shards", new BsonDocument()).forEach(doc -> hosts.put(doc.getString("_id").getValue(), doc.getString("host").getValue()));
        return find("collections", new BsonDocument("_id", new BsonString(namespace))).stream().findFirst()
                .map(ShardedCollection::fromBson).map(c -> collection(c, hosts, settings));
    }

    /** Every {@code config.shards} entry. */
    public List<ShardState> shards() {
        return find("shards", new BsonDocument()).stream().map(ClusterStatistics::shard).toList();
    }

    /**
     * The balancer settings from {@code config.settings} ({@code balancer}, {@code chunksize}); MongoDB's defaults for
     * whatever is unset. A stored value the policy cannot read is reported, never silently replaced.
     *
     * @throws CommandException BadValue naming the malformed setting
     */
    public BalancerSettings settings() {
        BsonDocument balancer = new BsonDocument();
        BsonDocument chunksize = new BsonDocument();
        for (BsonDocument doc : find("settings", new BsonDocument())) {
            switch (doc.getString("_id").getValue()) {
                case "balancer" -> balancer = doc;
                case "chunksize" -> chunksize = doc;
                default -> { }
            }
        }
        BalancerSettings defaults = BalancerSettings.DEFAULTS;
        try {
            BalancerSettings.Mode mode = balancer.isString("mode") ? BalancerSettings.Mode.parse(balancer.getString("mode").getValue())
                    : balancer.getBoolean("stopped", org.bson.BsonBoolean.FALSE).getValue() ? BalancerSettings.Mode.OFF : defaults.mode();
            ActiveWindow window = balancer.isDocument("activeWindow")
                    ? ActiveWindow.parse(string(balancer.getDocument("activeWindow"), "start"), string(balancer.getDocument("activeWindow"), "stop"))
                    : null;
            long chunkSize = chunksize.isNumber("value") ? (long) (chunksize.getNumber("value").doubleValue() * 1024 * 1024)
                    : defaults.chunkSizeBytes();
            BalancerSettings.Policy policy = balancer.isString("policy") ? BalancerSettings.Policy.parse(balancer.getString("policy").getValue())
                    : defaults.policy();
            return new BalancerSettings(mode, window, balancer.getBoolean("attemptToBalanceJumboChunks", org.bson.BsonBoolean.FALSE).getValue(),
                    chunkSize, policy);
        } catch (IllegalArgumentException e) {
            throw new CommandException(ErrorCode.BadValue, "config.settings: " + e.getMessage(), e);
        }
    }

    private CollectionState collection(ShardedCollection collection, Map<String, String> hosts, BalancerSettings settings) {
        List<Chunk> chunks = find("chunks", new BsonDocument("uuid", new BsonBinary(collection.uuid()))).stream().map(Chunk::fromBson).toList();
        List<ZoneRange> zones = find("tags", new BsonDocument("ns", new BsonString(collection.namespace()))).stream()
                .map(doc -> new ZoneRange(doc.getString("tag").getValue(), new ChunkRange(doc.getDocument("min"), doc.getDocument("max"))))
                .toList();
        Map<String, Long> sizes = new HashMap<>();
        hosts.forEach((shard, host) -> dataSize(shard, host, collection.namespace()).ifPresent(size -> sizes.put(shard, size)));
        return new CollectionState(collection.namespace(), chunks, sizes, settings.chunkSizeBytes(), collection.noBalance(), zones);
    }

    /** The shard's owned bytes of {@code namespace}, empty when it does not answer (the round goes on without it). */
    private Optional<Long> dataSize(String shard, String host, String namespace) {
        try {
            BsonDocument reply = client.runChecked(shard, host, "admin", new BsonDocument("_shardsvrDataDistribution", new BsonString(namespace)));
            return Optional.of(reply.getNumber("ownedSizeBytes").longValue());
        } catch (CommandException e) {
            return Optional.empty();
        }
    }

    private List<BsonDocument> find(String collection, BsonDocument filter) {
        BsonDocument reply = client.runChecked(CONFIG, configUrl, CONFIG, new BsonDocument("find", new BsonString(collection)).append("filter", filter));
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private static ShardState shard(BsonDocument doc) {
        Set<String> zones = new HashSet<>();
        if (doc.isArray("tags")) {
            doc.getArray("tags").forEach(tag -> zones.add(tag.asString().getValue()));
        }
        return new ShardState(doc.getString("_id").getValue(), doc.getInt32("state", new org.bson.BsonInt32(1)).getValue() == DRAINING, zones);
    }

    private static String string(BsonDocument doc, String field) {
        if (!doc.isString(field)) {
            throw new IllegalArgumentException("activeWindow." + field + " must be a \"HH:mm\" string");
        }
        return doc.getString(field).getValue();
    }
}
