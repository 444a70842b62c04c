package dev.shardstore.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.console.ChunkCache.CachedChunk;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ChunkCache}: a split, a merge and a move are merged into the held chunks from the chunks newer than the newest
 * held; the jumbo flag follows the jumbo chunks; a list that would not tile the key space, and a new collection
 * identity, read the chunks whole. The second read of an unchanged collection asks only for what changed (a stand-in
 * router answering as the config service does: the filter's {@code lastmod} and {@code jumbo} conditions applied).
 */
class ChunkCacheTest {
    private static final String UUID = "{\"$uuid\": \"0f0c8e9e-0000-4000-8000-000000000002\"}";

    /** The stand-in's {@code config.chunks}, as JSON documents; the tests change it between reads. */
    private final List<String> catalog = new ArrayList<>();
    private final StandIn router = new StandIn(this::answer);
    private final ChunkCache cache = new ChunkCache(new ClusterClient(
            ConsoleProperties.of(List.of(router.url()), router.url(), router.url(), router.url(), router.url()), Clock.systemUTC()));

    @AfterEach
    void stop() {
        router.close();
    }

    private StandIn.Answer answer(StandIn.Request request) {
        BsonDocument filter = request.command().getDocument("filter");
        List<String> matching = catalog.stream().filter(json -> matches(ExtendedJson.parse(json), filter)).toList();
        return StandIn.Answer.json(StandIn.cursor(String.join(", ", matching)));
    }

    /** The console's two filters: {@code {uuid}} and {@code {uuid, $or: [newer major, same major newer minor, jumbo]}}. */
    private static boolean matches(BsonDocument chunk, BsonDocument filter) {
        if (!filter.containsKey("$or")) {
            return true;
        }
        int major = filter.getArray("$or").get(0).asDocument().getDocument("lastmod.major").getNumber("$gt").intValue();
        int minor = filter.getArray("$or").get(1).asDocument().getDocument("lastmod.minor").getNumber("$gt").intValue();
        BsonDocument lastmod = chunk.getDocument("lastmod");
        int chunkMajor = lastmod.getNumber("major").intValue();
        return chunkMajor > major || (chunkMajor == major && lastmod.getNumber("minor").intValue() > minor)
                || chunk.getBoolean("jumbo").getValue();
    }

    private static String chunk(String min, String max, String shard, int major, int minor, boolean jumbo) {
        return "{\"uuid\": " + UUID + ", \"min\": {\"k\": " + min + "}, \"max\": {\"k\": " + max + "}, \"shard\": \"" + shard + "\","
                + " \"lastmod\": {\"major\": " + major + ", \"minor\": " + minor + "}, \"jumbo\": " + jumbo + "}";
    }

    private static BsonDocument collection(String uuid) {
        return ExtendedJson.parse("{\"_id\": \"geo.cities\", \"uuid\": " + uuid + ", \"key\": {\"k\": 1}}");
    }

    private List<String> read() {
        return cache.chunks(collection(UUID)).stream().map(c -> c.minJson() + " " + c.shard() + " " + c.version() + (c.jumbo() ? " jumbo" : ""))
                .toList();
    }

    private long fullReads() {
        return router.requests().stream().filter(r -> !r.command().getDocument("filter").containsKey("$or")).count();
    }

    @Test
    void splitsMovesMergesAndJumboMarksAreMergedFromWhatChanged() {
        catalog.addAll(List.of(chunk("{\"$minKey\": 1}", "100", "shard1", 1, 0, false), chunk("100", "{\"$maxKey\": 1}", "shard1", 1, 1, false)));
        assertThat(read()).containsExactly("{\"k\": {\"$minKey\": 1}} shard1 1|0", "{\"k\": 100} shard1 1|1");

        // a split of [100, max) at 200: both halves get newer versions
        catalog.set(1, chunk("100", "200", "shard1", 1, 2, false));
        catalog.add(chunk("200", "{\"$maxKey\": 1}", "shard1", 1, 3, false));
        assertThat(read()).containsExactly("{\"k\": {\"$minKey\": 1}} shard1 1|0", "{\"k\": 100} shard1 1|2", "{\"k\": 200} shard1 1|3");

        // a move of [200, max) to shard2, and the balancer marks [min, 100) jumbo (no version change)
        catalog.set(2, chunk("200", "{\"$maxKey\": 1}", "shard2", 2, 0, false));
        catalog.set(0, chunk("{\"$minKey\": 1}", "100", "shard1", 1, 0, true));
        assertThat(read()).containsExactly("{\"k\": {\"$minKey\": 1}} shard1 1|0 jumbo", "{\"k\": 100} shard1 1|2", "{\"k\": 200} shard2 2|0");

        // a merge of [min, 200) on shard1, which also clears the jumbo mark
        catalog.subList(0, 2).clear();
        catalog.addFirst(chunk("{\"$minKey\": 1}", "200", "shard1", 3, 0, false));
        assertThat(read()).containsExactly("{\"k\": {\"$minKey\": 1}} shard1 3|0", "{\"k\": 200} shard2 2|0");

        assertThat(fullReads()).as("only the first read was whole").isEqualTo(1);
        assertThat(router.requests().getLast().command().getDocument("filter").toJson()).contains("lastmod.major", "\"$gt\": 2", "jumbo");
    }

    @Test
    void aGapOrANewIdentityReadsTheChunksWhole() {
        catalog.addAll(List.of(chunk("{\"$minKey\": 1}", "100", "shard1", 1, 0, false), chunk("100", "{\"$maxKey\": 1}", "shard1", 1, 1, false)));
        read();
        // a changed chunk that does not cover what it replaced (no version rule does this): the merge would leave a gap
        catalog.set(1, chunk("150", "{\"$maxKey\": 1}", "shard2", 2, 0, false));
        assertThat(read()).containsExactly("{\"k\": {\"$minKey\": 1}} shard1 1|0", "{\"k\": 150} shard2 2|0");
        assertThat(fullReads()).isEqualTo(2);

        cache.chunks(collection("{\"$uuid\": \"0f0c8e9e-0000-4000-8000-000000000003\"}"));
        assertThat(fullReads()).as("a dropped and re-created collection").isEqualTo(3);
    }

    @Test
    void theMergeIsOneSweepThatKeepsKeyOrder() {
        List<CachedChunk> held = List.of(cached("{\"$minKey\": 1}", "10", 1, 0), cached("10", "20", 1, 1), cached("20", "30", 1, 2),
                cached("30", "{\"$maxKey\": 1}", 1, 3));
        List<CachedChunk> merged = ChunkCache.merge(held, List.of(cached("10", "30", 2, 0)));
        assertThat(merged).extracting(CachedChunk::minJson).containsExactly("{\"k\": {\"$minKey\": 1}}", "{\"k\": 10}", "{\"k\": 30}");
        assertThat(ChunkCache.tiles(merged)).isTrue();
        assertThat(ChunkCache.tiles(List.of(held.get(0), held.get(2)))).isFalse();
    }

    private static CachedChunk cached(String min, String max, int major, int minor) {
        return CachedChunk.of(ExtendedJson.parse(chunk(min, max, "shard1", major, minor, false)));
    }
}
