package dev.shardstore.cluster.it;

import static dev.shardstore.cluster.it.ItSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.load.BulkLoader;
import dev.shardstore.cluster.load.LoadListener;
import dev.shardstore.cluster.load.LoadReport;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.namespace.Namespace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
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
 * The balancer service on a local cluster of separate processes (3 shards, ports offset by 2200, a round every second):
 * the cities sample loaded with the balancer stopped into one chunk on the primary, with a 1 MB chunk size, is spread by
 * the rounds until {@code balancerCollectionStatus} is compliant, with a {@code kill -9} of the balancer service while a
 * round migrates; every document is still there exactly once. Then a zone pins France to shard3, and shard1 (the
 * database's primary) is removed: it drains, its database moves with movePrimary, and it leaves {@code config.shards}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BalancerIT {
    private static final Path CITIES = RepoLayout.detect().root().resolve("data/cities.json.gz");
    private static final String NS = "geo.cities";
    private static final List<String> SHARDS = List.of("shard1", "shard2", "shard3");

    private static LocalCluster cluster;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> cluster);
    private static RouterClient router;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = ItSupport.startWithFastBalancer("balancer", 3, 2200);
        router = new RouterClient(cluster.routerUrl(1), Duration.ofMinutes(5));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.stopAndDeleteData();
        }
    }

    private static BsonDocument ok(String db, String json) {
        return RouterClient.requireOk(json, router.run(db, ExtendedJson.parse(json)));
    }

    private static List<BsonDocument> chunks() {
        return ItSupport.chunks(router, NS);
    }

    private static Map<String, Long> chunksPerShard() {
        return ItSupport.chunksPerShard(router, NS);
    }

    private static BsonDocument collectionStatus() {
        return ok("admin", "{\"balancerCollectionStatus\": \"" + NS + "\"}");
    }

    @Test
    @Order(1)
    void aStoppedBalancerPlansButMovesNothing() {
        ok("admin", "{\"balancerStop\": 1}");
        assertThat(ok("admin", "{\"balancerStatus\": 1}").getString("mode").getValue()).isEqualTo("off");
        // 1 MB chunks, so that the sample makes a few dozen of them (no router path to config.settings yet)
        ItSupport.setChunkSizeMb(cluster, 1);
        ok("admin", "{\"shardCollection\": \"" + NS + "\", \"key\": {\"country\": 1, \"name\": 1}}");
        LoadReport report = new BulkLoader(router, 1000, 4).load(CITIES, Namespace.parse(NS), LoadListener.NONE);
        assertThat(report.failed()).isZero();
        assertThat(chunksPerShard()).hasSize(1);

        BsonDocument status = collectionStatus();
        assertThat(status.getBoolean("balancerCompliant").getValue()).isFalse();
        assertThat(status.getString("firstComplianceViolation").getValue()).isEqualTo("chunksImbalance");

        // the balancer is off: the plan says so and nothing moves
        List<BsonValue> decisions = ok("admin", "{\"balancerPlan\": 1}").getArray("decisions");
        assertThat(decisions).singleElement().satisfies(d -> assertThat(d.asDocument().getString("reason").getValue()).contains("off"));
        assertThat(chunksPerShard()).hasSize(1);
    }

    @Test
    @Order(2)
    void startedItSpreadsTheChunksEvenWhenKilledMidRound() throws Exception {
        ok("admin", "{\"balancerStart\": 1}");
        List<BsonValue> plan = ok("admin", "{\"balancerPlan\": 1}").getArray("decisions");
        assertThat(plan).anySatisfy(d -> {
            assertThat(d.asDocument().getString("verdict").getValue()).isEqualTo("yes");
            assertThat(d.asDocument().getString("decider").getValue()).isEqualTo("chunksImbalance");
        });

        // kill -9 while a round has a migration running on a shard
        waitUntil(() -> SHARDS.stream().anyMatch(s -> !ItSupport.onService(cluster, s, "admin",
                new BsonDocument("currentOp", new BsonInt32(1))).getArray("inprog").isEmpty()), Duration.ofMinutes(2), "a balancer migration");
        cluster.killService("balancer");
        cluster.startService("balancer");

        waitUntil(() -> collectionStatus().getBoolean("balancerCompliant").getValue(), Duration.ofMinutes(6), "balancerCompliant");
        assertThat(chunksPerShard().keySet()).containsExactlyInAnyOrderElementsOf(SHARDS);

        Map<String, Long> expected = CitiesFile.countsByCountry(CITIES);
        assertThat(countsByCountry()).isEqualTo(expected);
        long total = expected.values().stream().mapToLong(Long::longValue).sum();
        assertThat(ok("geo", "{\"count\": \"cities\"}").getNumber("n").longValue()).isEqualTo(total);
        long owned = ItSupport.ownedOnShards(cluster, SHARDS, NS);
        assertThat(owned).as("each document owned by exactly one shard").isEqualTo(total);

        BsonDocument status = ok("admin", "{\"balancerStatus\": 1}");
        assertThat(status.getString("mode").getValue()).isEqualTo("full");
        assertThat(status.getNumber("numBalancerRounds").longValue()).isPositive();
        assertThat(ok("config", "{\"find\": \"actionlog\"}").getDocument("cursor").getArray("firstBatch"))
                .anySatisfy(e -> assertThat(e.asDocument().getString("what").getValue()).isEqualTo("balancer.round"));
    }

    private static Map<String, Long> countsByCountry() {
        return ItSupport.countsByCountry(router, "geo", "cities");
    }

    @Test
    @Order(3)
    void aZonePinsFranceToOneShard() throws Exception {
        String france = "{\"country\": \"FR\", \"name\": {\"$minKey\": 1}}";
        String franceEnd = "{\"country\": \"FR\", \"name\": {\"$maxKey\": 1}}";
        ok("admin", "{\"addShardToZone\": \"shard3\", \"zone\": \"FRANCE\"}");
        ok("admin", "{\"updateZoneKeyRange\": \"" + NS + "\", \"min\": " + france + ", \"max\": " + franceEnd + ", \"zone\": \"FRANCE\"}");
        assertThat(ok("config", "{\"find\": \"tags\"}").getDocument("cursor").getArray("firstBatch")).singleElement()
                .satisfies(t -> assertThat(t.asDocument().getString("tag").getValue()).isEqualTo("FRANCE"));

        waitUntil(() -> collectionStatus().getBoolean("balancerCompliant").getValue(), Duration.ofMinutes(6), "France on shard3");
        BsonDocument min = ExtendedJson.parse(france);
        BsonDocument max = ExtendedJson.parse(franceEnd);
        List<BsonDocument> inFrance = chunks().stream().filter(c -> BsonOrder.compare(c.getDocument("min"), min) >= 0
                && BsonOrder.compare(c.getDocument("max"), max) <= 0).toList();
        assertThat(inFrance).isNotEmpty().allSatisfy(c -> assertThat(c.getString("shard").getValue()).isEqualTo("shard3"));
        // the zone's bounds are chunk bounds now, so a new French city is routed to shard3 and nowhere else
        ok("geo", "{\"insert\": \"cities\", \"documents\": [{\"country\": \"FR\", \"name\": \"Zzyzx-sur-Mer\"}]}");
        BsonDocument explain = ok("geo", "{\"explain\": {\"find\": \"cities\", \"filter\": {\"country\": \"FR\", \"name\": \"Zzyzx-sur-Mer\"}}}");
        assertThat(explain.getDocument("queryPlanner").getDocument("winningPlan").getArray("shards"))
                .extracting(v -> v.asDocument().getString("shardName").getValue()).containsExactly("shard3");
        ok("geo", "{\"delete\": \"cities\", \"deletes\": [{\"q\": {\"country\": \"FR\", \"name\": \"Zzyzx-sur-Mer\"}, \"limit\": 1}]}");
        assertThat(countsByCountry()).isEqualTo(CitiesFile.countsByCountry(CITIES));
    }

    @Test
    @Order(4)
    void removeShardDrainsTheShardAndItLeaves() throws Exception {
        String primary = ok("config", "{\"find\": \"databases\", \"filter\": {\"_id\": \"geo\"}}").getDocument("cursor")
                .getArray("firstBatch").get(0).asDocument().getString("primary").getValue();
        ok("geo", "{\"insert\": \"notes\", \"documents\": [{\"_id\": 1}, {\"_id\": 2}, {\"_id\": 3}]}");
        String removed = primary.equals("shard3") ? "shard1" : primary; // shard3 is the FRANCE zone's only shard
        BsonDocument started = ok("admin", "{\"removeShard\": \"" + removed + "\"}");
        assertThat(started.getString("state").getValue()).isEqualTo("started");

        waitUntil(() -> chunksPerShard().getOrDefault(removed, 0L) == 0, Duration.ofMinutes(6), "the chunks drained from " + removed);
        BsonDocument afterDrain = ok("admin", "{\"removeShard\": \"" + removed + "\"}");
        if (removed.equals(primary)) {
            assertThat(afterDrain.getString("state").getValue()).isEqualTo("ongoing");
            assertThat(afterDrain.getDocument("remaining").getNumber("chunks").longValue()).isZero();
            assertThat(afterDrain.getArray("dbsToMove")).containsExactly(new BsonString("geo"));
            ok("admin", "{\"movePrimary\": \"geo\", \"to\": \"" + (removed.equals("shard2") ? "shard3" : "shard2") + "\"}");
            afterDrain = ok("admin", "{\"removeShard\": \"" + removed + "\"}");
        }
        assertThat(afterDrain.getString("state").getValue()).isEqualTo("completed");
        assertThat(ok("admin", "{\"listShards\": 1}").getArray("shards")).extracting(v -> v.asDocument().getString("_id").getValue())
                .doesNotContain(removed).hasSize(2);
        assertThat(chunksPerShard()).doesNotContainKey(removed);
        assertThat(countsByCountry()).isEqualTo(CitiesFile.countsByCountry(CITIES));
        assertThat(ok("geo", "{\"count\": \"notes\"}").getNumber("n").longValue()).isEqualTo(3);
    }
}
