package dev.shardstore.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.console.Views.Chunk;
import dev.shardstore.console.Views.CollectionMap;
import dev.shardstore.console.meters.MeterSampler;
import java.time.Clock;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ClusterViews} against a stand-in router and shards ({@link StandIn}: a JDK HTTP server answering the commands
 * and Actuator requests the console sends, in the shapes the router and the shards answer them): the map puts the chunks in shard
 * key order whatever order {@code config.chunks} returns them in, sizes them by the chosen measure from the shards'
 * owned totals, and marks jumbo chunks, zones and the chunk being moved; a refused command's problem body becomes the
 * page's error with its code. The console against the real cluster is local-cluster's ConsoleIT.
 */
class ClusterViewsTest {
    private static final String UUID = "{\"$uuid\": \"0f0c8e9e-0000-4000-8000-000000000001\"}";

    private StandIn cluster;
    private ClusterViews views;

    @BeforeEach
    void startStandIn() {
        cluster = new StandIn(this::answer);
        String url = cluster.url();
        ConsoleProperties properties = ConsoleProperties.of(List.of(url), url, url, url, url);
        ClusterClient client = new ClusterClient(properties, Clock.systemUTC());
        views = new ClusterViews(client, new ChunkCache(client), new MeterSampler(client, properties, Clock.systemUTC()), properties);
    }

    @AfterEach
    void stop() {
        views.close();
        cluster.close();
    }

    private StandIn.Answer answer(StandIn.Request request) {
        String path = request.path();
        String host = cluster.url();
        if (path.endsWith("/actuator/health")) {
            return StandIn.Answer.json("{\"status\": \"UP\"}");
        }
        if (path.endsWith("/actuator/migrations")) {
            return StandIn.Answer.json("{\"active\": [{\"desc\": \"migrating chunk (donor)\", \"ns\": \"geo.cities\", \"min\": {\"k\": 10}, \"max\": {\"k\": 20},"
                    + " \"donor\": \"shard1\", \"recipient\": \"shard2\", \"phase\": \"clone\", \"documentsCloned\": 50, \"bytesCloned\": 500,"
                    + " \"modsTransferred\": 0, \"elapsedMillis\": 100}], \"rangeDeletions\": []}");
        }
        BsonDocument command = request.command();
        String name = command == null ? "" : command.getFirstKey();
        return switch (name) {
            case "listShards" -> StandIn.Answer.json("{\"shards\": [{\"_id\": \"shard1\", \"host\": \"" + host + "\"}, {\"_id\": \"shard2\", \"host\": \""
                    + host + "\"}], \"ok\": 1}");
            case "aggregate" -> StandIn.Answer.json("{\"cursor\": {\"firstBatch\": [{\"ns\": \"geo.cities\", \"shards\": ["
                    + "{\"shardName\": \"shard1\", \"numOwnedDocuments\": 300, \"ownedSizeBytes\": 3000},"
                    + " {\"shardName\": \"shard2\", \"numOwnedDocuments\": 100, \"ownedSizeBytes\": 1000}]}], \"id\": 0}, \"ok\": 1}");
            case "find" -> StandIn.Answer.json(switch (command.getString("find").getValue()) {
                case "collections" -> StandIn.cursor("{\"_id\": \"geo.cities\", \"key\": {\"k\": 1}, \"uuid\": " + UUID + "}");
                // out of key order, as a find may return them
                case "chunks" -> StandIn.cursor(chunk("20", "{\"$maxKey\": 1}", "shard2", false) + ", " + chunk("{\"$minKey\": 1}", "10", "shard1", false)
                        + ", " + chunk("10", "20", "shard1", true));
                case "tags" -> StandIn.cursor("{\"ns\": \"geo.cities\", \"tag\": \"EU\", \"min\": {\"k\": 20}, \"max\": {\"k\": {\"$maxKey\": 1}}}");
                default -> StandIn.cursor("");
            });
            default -> new StandIn.Answer(404, "application/json",
                    "{\"ok\": 0, \"errmsg\": \"no such command: '" + name + "'\", \"code\": 59, \"codeName\": \"CommandNotFound\"}");
        };
    }

    private static String chunk(String min, String max, String shard, boolean jumbo) {
        return "{\"uuid\": " + UUID + ", \"min\": {\"k\": " + min + "}, \"max\": {\"k\": " + max + "}, \"shard\": \"" + shard + "\","
                + " \"lastmod\": {\"major\": 2, \"minor\": 1}, \"jumbo\": " + jumbo + "}";
    }

    @Test
    void theMapDrawsTheChunksInKeyOrderSizedByTheChosenMeasureWithTheirMarks() {
        CollectionMap map = views.collectionMap("geo.cities", "documents");

        assertThat(map.errors()).isEmpty();
        assertThat(map.key()).isEqualTo("{\"k\": 1}");
        assertThat(map.chunks()).extracting(Chunk::min)
                .containsExactly("{\"k\": {\"$minKey\": 1}}", "{\"k\": 10}", "{\"k\": 20}");
        assertThat(map.chunks()).extracting(Chunk::shard).containsExactly("shard1", "shard1", "shard2");
        // shard1 owns 300 documents in 2 chunks, shard2 100 in 1: 150, 150, 100 of 400
        assertThat(map.chunks()).extracting(Chunk::documents).containsExactly(150L, 150L, 100L);
        assertThat(map.chunks()).extracting(Chunk::weight).containsExactly(37.5, 37.5, 25.0);
        assertThat(map.chunks()).extracting(Chunk::jumbo).containsExactly(false, true, false);
        assertThat(map.chunks()).extracting(Chunk::zone).containsExactly(null, null, "EU");
        assertThat(map.chunks()).extracting(Chunk::moving).containsExactly(null, "clone → shard2", null);
        assertThat(map.chunks().get(1).describe())
                .isEqualTo("Chunk 2: [{\"k\": 10}, {\"k\": 20}) on shard1, version 2|1, ~150 documents, ~1500 bytes, jumbo, moving: clone → shard2");

        assertThat(views.collectionMap("geo.cities", "chunks").chunks()).extracting(Chunk::weight)
                .allSatisfy(w -> assertThat(w).isCloseTo(100.0 / 3, org.assertj.core.data.Offset.offset(1e-9)));
    }

    @Test
    void aRefusedCommandIsTheViewsErrorWithItsCode() {
        // the stand-in knows no balancer command: its CommandNotFound problem body is what the page shows
        assertThat(views.overview().errors()).extracting(ClusterError::source, ClusterError::code, ClusterError::codeName)
                .contains(org.assertj.core.groups.Tuple.tuple("balancerStatus", 59, "CommandNotFound"));
        assertThat(views.setBalancer(false).message()).isEqualTo("balancerStop refused: CommandNotFound (59): no such command: 'balancerStop'");
    }

    @Test
    void aRunningMigrationsProgressIsOverItsChunksEstimate() {
        // shard1 owns 300 documents in 2 chunks: 50 cloned of an estimated 150 (both stand-in shards answer on one host,
        // so each reports the migration)
        assertThat(views.movements().active()).hasSize(2).allSatisfy(m -> {
            assertThat(m.percent()).isEqualTo(33);
            assertThat(m.phase()).isEqualTo("clone");
        });
    }
}
