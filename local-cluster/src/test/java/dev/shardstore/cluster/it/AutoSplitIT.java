package dev.shardstore.cluster.it;

import static dev.shardstore.cluster.it.ItSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.load.BulkLoader;
import dev.shardstore.cluster.load.LoadListener;
import dev.shardstore.cluster.load.LoadReport;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.namespace.Namespace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Shard-side auto-split on a local cluster of separate processes (3 shards, ports offset by 2900, a balancer round every
 * second, 1 MB chunks): the cities sample loaded through the router into a collection sharded while empty (one chunk) is
 * split by the owning shards during the load (top chunk optimization moves the hot top chunk away) and spread by the
 * balancer until {@code balancerCollectionStatus} is compliant, with every document there exactly once; then a chunk of a
 * single repeated shard key value grows past the maximum: the shard marks it jumbo instead of splitting it, the balancer
 * skips it, and {@code clearJumboFlag} clears the flag.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AutoSplitIT {
    private static final Path CITIES = RepoLayout.detect().root().resolve("data/cities.json.gz");
    private static final String NS = "geo.cities";
    private static final String HOT = "geo.hot";
    private static final List<String> SHARDS = List.of("shard1", "shard2", "shard3");
    private static final Pattern COUNT = Pattern.compile("\"statistic\"\\s*:\\s*\"COUNT\"\\s*,\\s*\"value\"\\s*:\\s*([0-9.E]+)");

    private static LocalCluster cluster;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> cluster);
    private static RouterClient router;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = ItSupport.startWithFastBalancer("autosplit", 3, 2900, "-Dshardstore.shard.autosplit.settings-refresh-interval=1s");
        router = new RouterClient(cluster.routerUrl(1), Duration.ofMinutes(5));
        ItSupport.setChunkSizeMb(cluster, 1);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.stopAndDeleteData();
        }
    }

    private static List<BsonDocument> chunks(String ns) {
        return ItSupport.chunks(router, ns);
    }

    /** The shard's {@code shardstore.shard.autosplits} count with {@code outcome} (0 when it never counted one). */
    private static double autosplits(String shard, String outcome) {
        Matcher m = COUNT.matcher(ItSupport.get(cluster.url(shard) + "/actuator/metrics/shardstore.shard.autosplits?tag=outcome:" + outcome));
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    @Test
    @Order(1)
    void theCitiesLoadedIntoOneChunkAreSplitDuringTheLoadAndSpreadUntilCompliant() throws Exception {
        ItSupport.ok(router, "admin", "{\"shardCollection\": \"" + NS + "\", \"key\": {\"country\": 1, \"name\": 1}}");
        assertThat(chunks(NS)).as("sharded while empty: one chunk").hasSize(1);

        LoadReport report = new BulkLoader(router, 1000, 4).load(CITIES, Namespace.parse(NS), LoadListener.NONE);
        assertThat(report.failed()).isZero();
        assertThat(chunks(NS).size()).as("the shards split the chunk while the data came in").isGreaterThan(5);
        assertThat(SHARDS.stream().mapToDouble(s -> autosplits(s, "split")).sum()).isPositive();
        List<String> splitEntries = ItSupport.firstBatch(router, "changelog", new BsonDocument("ns", new BsonString(NS))).stream()
                .map(e -> e.getString("what").getValue()).filter(w -> w.equals("split") || w.equals("multi-split")).toList();
        assertThat(splitEntries).as("config.changelog records the splits").isNotEmpty();

        waitUntil(() -> ItSupport.ok(router, "admin", "{\"balancerCollectionStatus\": \"" + NS + "\"}").getBoolean("balancerCompliant").getValue(),
                Duration.ofMinutes(8), "balancerCompliant");
        assertThat(ItSupport.chunksPerShard(router, NS).keySet()).containsExactlyInAnyOrderElementsOf(SHARDS);

        Map<String, Long> expected = CitiesFile.countsByCountry(CITIES);
        assertThat(ItSupport.countsByCountry(router, "geo", "cities")).isEqualTo(expected);
        long total = expected.values().stream().mapToLong(Long::longValue).sum();
        assertThat(ItSupport.ok(router, "geo", "{\"count\": \"cities\"}").getNumber("n").longValue()).isEqualTo(total);
        long owned = ItSupport.ownedOnShards(cluster, SHARDS, NS);
        assertThat(owned).as("each document owned by exactly one shard").isEqualTo(total);
    }

    @Test
    @Order(2)
    void aChunkOfOneRepeatedKeyIsMarkedJumboSkippedByTheBalancerAndClearedByClearJumboFlag() throws Exception {
        ItSupport.ok(router, "admin", "{\"shardCollection\": \"" + HOT + "\", \"key\": {\"k\": 1}}");
        String owner = chunks(HOT).getFirst().getString("shard").getValue();
        double jumbosBefore = autosplits(owner, "jumbo");
        String pad = "j".repeat(1000);
        for (int batch = 0; batch < 10; batch++) { // 5000 documents of ~1 KB: 5 MB, past three chunk sizes of imbalance
            BsonArray docs = new BsonArray();
            for (int i = 0; i < 500; i++) {
                docs.add(new BsonDocument("k", new BsonString("same")).append("pad", new BsonString(pad)));
            }
            RouterClient.requireOk("insert", router.run("geo", new BsonDocument("insert", new BsonString("hot")).append("documents", docs)));
        }

        waitUntil(() -> chunks(HOT).getFirst().getBoolean("jumbo", org.bson.BsonBoolean.FALSE).getValue(), Duration.ofMinutes(2), "jumbo");
        assertThat(chunks(HOT)).as("one key value cannot be split").hasSize(1);
        assertThat(autosplits(owner, "jumbo")).as("the owning shard's auto-split marked it").isGreaterThan(jumbosBefore);

        long rounds = ItSupport.ok(router, "admin", "{\"balancerStatus\": 1}").getNumber("numBalancerRounds").longValue();
        waitUntil(() -> ItSupport.ok(router, "admin", "{\"balancerStatus\": 1}").getNumber("numBalancerRounds").longValue() >= rounds + 3,
                Duration.ofMinutes(2), "three more balancer rounds");
        assertThat(chunks(HOT)).singleElement().satisfies(c -> assertThat(c.getString("shard").getValue()).isEqualTo(owner));
        // the plan says why (once no other collection's migration keeps the shards busy in that round)
        waitUntil(() -> ItSupport.ok(router, "admin", "{\"balancerPlan\": 1}").getArray("decisions").stream().map(BsonValue::asDocument)
                .anyMatch(d -> d.getString("ns").getValue().equals(HOT) && d.getString("reason").getValue().contains("jumbo")),
                Duration.ofMinutes(3), "balancerPlan skips the jumbo chunk");

        ItSupport.ok(router, "admin", "{\"balancerStop\": 1}"); // else the next round's refused move would mark it again
        ItSupport.ok(router, "admin", "{\"clearJumboFlag\": \"" + HOT + "\", \"find\": {\"k\": \"same\"}}");
        assertThat(chunks(HOT)).singleElement()
                .satisfies(c -> assertThat(c.getBoolean("jumbo", org.bson.BsonBoolean.FALSE).getValue()).isFalse());
        assertThat(ItSupport.ok(router, "geo", "{\"count\": \"hot\"}").getNumber("n").longValue()).isEqualTo(5000);
    }
}
