package dev.shardstore.balancer.cluster;

import dev.shardstore.contracts.balancer.BalancerSettings;
import dev.shardstore.balancer.policy.ClusterSnapshot;
import dev.shardstore.balancer.policy.CollectionState;
import dev.shardstore.balancer.policy.ShardState;
import dev.shardstore.balancer.policy.ZoneRange;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.support.ServiceSupportProperties;
import java.time.Clock;
import dev.shardstore.transport.http.CommandClient;
import java.time.Instant;
import java.time.LocalTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * Reads what a round decides from, MongoDB's ClusterStatistics (mongo/src/mongo/db/s/README.md "Auto-balancing"): {@code config.settings},
 * {@code config.shards}, {@code config.collections}, {@code config.chunks} and {@code config.tags} from the config
 * service ({@code find} on the config database), and each shard's owned bytes of each collection
 * ({@code _shardsvrDataDistribution}). Each call reads afresh; nothing is cached between rounds.
 */
@Component
public class ClusterStatistics {
    private static final String CONFIG = "config";
    /** MongoDB's {@code config.shards} state of a draining shard. */
    private static final int DRAINING = 2;
    /** Asks the shards for their data sizes: a virtual thread per request, blocked on its peer connection. */
    private static final Executor ASK = Executors.newVirtualThreadPerTaskExecutor();
    private final PeerCommands client;
    private final String configUrl;
    private final Clock clock;

    /** @param clock what a snapshot's {@code localTime} and {@code now} are read from */
    public ClusterStatistics(PeerCommands client, ServiceSupportProperties properties, Clock clock) {
        this.client = client;
        this.configUrl = properties.configUrl();
        this.clock = clock;
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
        Map<String, String> hosts = hostsOf(shardDocs);
        List<CollectionState> collections = find("collections", new BsonDocument()).stream().map(ShardedCollection::fromBson)
                .map(collection -> collection(collection, hosts, settings)).toList();
        return new ClusterSnapshot(shards, collections, settings, LocalTime.now(clock), clock.instant());
    }

    /** One collection's state, for {@code balancerCollectionStatus}; empty when it is not sharded. */
    public Optional<CollectionState> collection(String namespace, BalancerSettings settings) {
        Map<String, String> hosts = hosts();
        return find("collections", new BsonDocument("_id", new BsonString(namespace))).stream().findFirst()
                .map(ShardedCollection::fromBson).map(c -> collection(c, hosts, settings));
    }

    /** Each shard's host URL by shard id ({@code config.shards}). */
    public Map<String, String> hosts() {
        return hostsOf(find("shards", new BsonDocument()));
    }

    private static Map<String, String> hostsOf(List<BsonDocument> shardDocs) {
        Map<String, String> hosts = new HashMap<>();
        shardDocs.forEach(doc -> hosts.put(doc.getString("_id").getValue(), doc.getString("host").getValue()));
        return hosts;
    }

    /** Every {@code config.shards} entry. */
    public List<ShardState> shards() {
        return find("shards", new BsonDocument()).stream().map(ClusterStatistics::shard).toList();
    }

    /**
     * The balancer settings from {@code config.settings} ({@code balancer}, {@code chunksize}, {@code automerge}) by
     * {@link BalancerSettings#fromDocuments}; MongoDB's defaults for whatever is unset. A stored value the policy cannot
     * read is reported, never silently replaced.
     *
     * @throws CommandException BadValue naming the malformed setting
     */
    public BalancerSettings settings() {
        Map<String, BsonDocument> documents = new HashMap<>();
        for (BsonDocument doc : find("settings", new BsonDocument())) {
            documents.put(doc.getString("_id").getValue(), doc);
        }
        try {
            return BalancerSettings.fromDocuments(documents.getOrDefault("balancer", new BsonDocument()),
                    documents.getOrDefault("chunksize", new BsonDocument()), documents.getOrDefault("automerge", new BsonDocument()));
        } catch (IllegalArgumentException e) {
            throw new CommandException(ErrorCode.BadValue, "config.settings: " + e.getMessage(), e);
        }
    }

    private CollectionState collection(ShardedCollection collection, Map<String, String> hosts, BalancerSettings settings) {
        List<BsonDocument> chunkDocs = find("chunks", new BsonDocument("uuid", new BsonBinary(collection.uuid())));
        List<Chunk> chunks = chunkDocs.stream().map(Chunk::fromBson).toList();
        Map<ChunkRange, Instant> onShardSince = new HashMap<>();
        for (BsonDocument doc : chunkDocs) {
            // history is newest first: its first entry placed the chunk on its current shard
            if (doc.isArray("history") && !doc.getArray("history").isEmpty()) {
                onShardSince.put(new ChunkRange(doc.getDocument("min"), doc.getDocument("max")),
                        Instant.ofEpochSecond(Integer.toUnsignedLong(doc.getArray("history").get(0).asDocument().getTimestamp("validAfter").getTime())));
            }
        }
        List<ZoneRange> zones = find("tags", new BsonDocument("ns", new BsonString(collection.namespace()))).stream()
                .map(doc -> new ZoneRange(doc.getString("tag").getValue(), new ChunkRange(doc.getDocument("min"), doc.getDocument("max"))))
                .toList();
        Map<String, Long> sizes = dataSizes(hosts, collection.namespace());
        long maxChunkSize = collection.maxChunkSizeBytes() != null ? collection.maxChunkSizeBytes() : settings.chunkSizeBytes();
        return new CollectionState(collection.namespace(), chunks, sizes, maxChunkSize, collection.noBalance(), zones, collection.key(),
                !Boolean.FALSE.equals(collection.enableAutoMerger()), onShardSince);
    }

    /**
     * Each answering shard's owned bytes of {@code namespace}, asked of every shard at once: a shard sizes its whole
     * collection for the answer, so asking one after another made the round wait for the sum of those passes (on the
     * 3M flights over 4 shards, the time between one migration and the next fell from 2.4 s to 2.3 s; docs/benchmarks.md,
     * "The same, again").
     */
    private Map<String, Long> dataSizes(Map<String, String> hosts, String namespace) {
        Map<String, CompletableFuture<Optional<Long>>> asked = new HashMap<>();
        hosts.forEach((shard, host) -> asked.put(shard, CompletableFuture.supplyAsync(() -> dataSize(shard, host, namespace), ASK)));
        Map<String, Long> sizes = new HashMap<>();
        asked.forEach((shard, answer) -> {
            try {
                answer.join().ifPresent(size -> sizes.put(shard, size));
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException cause ? cause : e;
            }
        });
        return sizes;
    }

    /** The shard's owned bytes of {@code namespace}, empty when it does not answer (the round goes on without it). */
    private Optional<Long> dataSize(String shard, String host, String namespace) {
        try {
            BsonDocument reply = client.run(shard, host, "admin", new BsonDocument("_shardsvrDataDistribution", new BsonString(namespace)));
            return Optional.of(reply.getNumber("ownedSizeBytes").longValue());
        } catch (CommandException e) {
            return Optional.empty();
        }
    }

    private List<BsonDocument> find(String collection, BsonDocument filter) {
        BsonDocument reply = client.run(CONFIG, configUrl, CONFIG, new BsonDocument("find", new BsonString(collection)).append("filter", filter));
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private static ShardState shard(BsonDocument doc) {
        Set<String> zones = new HashSet<>();
        if (doc.isArray("tags")) {
            doc.getArray("tags").forEach(tag -> zones.add(tag.asString().getValue()));
        }
        return new ShardState(doc.getString("_id").getValue(), doc.getInt32("state", new org.bson.BsonInt32(1)).getValue() == DRAINING, zones);
    }
}
