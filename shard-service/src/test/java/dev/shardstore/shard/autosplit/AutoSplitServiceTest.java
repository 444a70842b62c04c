package dev.shardstore.shard.autosplit;

import static dev.shardstore.shard.TestRouting.chunk;
import static dev.shardstore.shard.TestRouting.collection;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.shard.versioning.CollectionShardingState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Auto-split on a real shard service (real PostgreSQL) with {@link ConfigServerStub} as the config service, whose split
 * commit applies the config service's checks and version rules. Each test shards its own namespace {@code autosplit.<name>}
 * on {@code {x: 1}}, with a maximum chunk size of 1 MiB for that collection ({@code config.collections}
 * {@code maxChunkSizeBytes}); documents are {@code {_id, x, pad: <1000 chars>}}, about 1 KiB each, so a chunk reaches the
 * maximum at about 1000 documents and the split test threshold (a fifth) at about 200. Writes go straight to the shard,
 * unversioned, after the shard loaded the collection's filtering metadata.
 */
class AutoSplitServiceTest extends ShardIntegrationTest {
    private static final long MAX_CHUNK = 1024 * 1024;
    private static final String PAD = "p".repeat(1000);
    private static final ConfigServerStub CONFIG = ConfigServerStub.instance();

    @Autowired
    CollectionShardingState sharding;

    @Autowired
    AutoSplitSettings settings;

    @Autowired
    ChunkWritesTracker tracker;

    @Autowired
    ChunkSplitter splitter;

    @Autowired
    MeterRegistry meters;

    @AfterEach
    void settingsBack() {
        CONFIG.putSetting("autosplit", null);
    }

    @Test
    void writesPastTheThresholdSplitTheChunkIntoPartsOfAboutHalfTheMaximum() {
        String ns = setUp("halves", "{x: 0}", "{x: 1000000}");
        List<Integer> xs = new ArrayList<>();
        for (int i = 0; i < 1100; i++) {
            xs.add(i * 7919 % 1_000_000); // distinct, not in key order
        }
        insert("halves", xs, 0); // one unit: one task that sees all of it

        await().atMost(Duration.ofSeconds(60)).until(() -> splitsOf(ns) == 1 && splitter.inProgress().isEmpty());
        List<Chunk> pieces = chunksWithin(ns, 0, 1_000_000);
        long documentBytes = averageDocumentBytes();
        List<Long> sizes = pieces.stream().map(c -> xs.stream().filter(x -> inRange(c.range(), x)).count() * documentBytes).toList();
        assertThat(pieces).as("1100 documents of ~1 KiB cut every ~512 KiB").hasSize(3);
        assertThat(sizes.subList(0, 2)).allSatisfy(size -> assertThat(size).isBetween(MAX_CHUNK * 45 / 100, MAX_CHUNK * 55 / 100));
        assertThat(sizes.get(2)).isLessThan(MAX_CHUNK / 2);
        assertThat(CONFIG.chunks(ns)).hasSize(5);
        assertThat(documentCount("halves")).isEqualTo(1100);
        assertThat(tracker.bytesWritten(ns, pieces.getFirst().range())).as("new chunks start counting at zero").isZero();
    }

    @Test
    void aChunkOfOneRepeatedKeyPastTheMaximumIsMarkedJumboAndNotSplit() {
        String ns = setUp("jumbo", "{x: 0}", "{x: 1000000}");
        double jumbos = count("jumbo");
        insert("jumbo", java.util.Collections.nCopies(1100, 7), 0);

        await().atMost(Duration.ofSeconds(60)).until(() -> count("jumbo") > jumbos);
        assertThat(chunksWithin(ns, 0, 1_000_000)).singleElement().satisfies(c -> assertThat(c.jumbo()).isTrue());
        assertThat(CONFIG.chunks(ns)).hasSize(3).filteredOn(Chunk::jumbo).hasSize(1);
        assertThat(splitsOf(ns)).isZero();
        assertThat(documentCount("jumbo")).isEqualTo(1100);
    }

    @Test
    void theTopChunksSplitAtTheExtremeKeyAndAreOfferedToAnotherShard() {
        CONFIG.registerShard("shard-far", "http://127.0.0.1:9"); // never called: the stub records moves without running them
        String ns = setUp("top", null, null);
        List<Integer> ascending = new ArrayList<>();
        for (int i = 0; i < 1100; i++) {
            ascending.add(i);
        }
        insert("top", ascending, 0);
        await().atMost(Duration.ofSeconds(60)).until(() -> splitsOf(ns) == 1 && splitter.inProgress().isEmpty());
        Chunk last = CONFIG.chunks(ns).getLast();
        assertThat(last.range().min()).as("the MaxKey chunk splits at its last key").isEqualTo(ExtendedJson.parse("{x: 1099}"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(moveOf(ns, last.range())).as("the new top chunk is offered to a less loaded shard").isNotNull());

        List<Integer> descending = new ArrayList<>();
        for (int i = 1; i <= 1100; i++) {
            descending.add(-i);
        }
        insert("top", descending, 10_000);
        await().atMost(Duration.ofSeconds(60)).until(() -> splitsOf(ns) == 2 && splitter.inProgress().isEmpty());
        Chunk first = CONFIG.chunks(ns).getFirst();
        assertThat(first.range().max()).as("the MinKey chunk splits at its first key").isEqualTo(ExtendedJson.parse("{x: -1100}"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(moveOf(ns, first.range())).isNotNull());
        assertThat(documentCount("top")).isEqualTo(2200);
    }

    @Test
    void manyWritersOnOneChunkGetOneSplitAtATimeAndLoseNoDocument() throws Exception {
        String ns = setUp("hammer", "{x: 0}", "{x: 1000000000}");
        int refusedBefore = CONFIG.refusedSplits();
        double failedBefore = count("failed");
        int writers = 8;
        int batches = 40;
        int perBatch = 10;
        AtomicInteger ids = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            done.add(pool.submit(() -> {
                for (int b = 0; b < batches; b++) {
                    List<Integer> xs = new ArrayList<>();
                    for (int i = 0; i < perBatch; i++) {
                        xs.add(ThreadLocalRandom.current().nextInt(0, 1_000_000_000));
                    }
                    insert("hammer", xs, ids.getAndAdd(perBatch));
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
        int total = writers * batches * perBatch;

        await().atMost(Duration.ofSeconds(60)).until(() -> splitter.inProgress().isEmpty() && splitsOf(ns) >= 1);
        assertThat(CONFIG.refusedSplits() - refusedBefore).as("no split was committed against a chunk another split had changed").isZero();
        assertThat(count("failed")).isEqualTo(failedBefore);
        List<Chunk> chunks = CONFIG.chunks(ns);
        for (int i = 1; i < chunks.size(); i++) {
            assertThat(chunks.get(i).range().min()).as("the chunks tile the key space").isEqualTo(chunks.get(i - 1).range().max());
        }
        Set<Integer> seen = new HashSet<>();
        for (BsonDocument d : documentsOf("autosplit", "hammer", total)) {
            assertThat(seen.add(d.getInt32("_id").getValue())).as("each document once").isTrue();
        }
        assertThat(seen).hasSize(total);
    }

    @Test
    void withAutoSplitOffTheWritesAreCountedButNothingSplits() {
        CONFIG.putSetting("autosplit", new BsonDocument("enabled", org.bson.BsonBoolean.FALSE));
        String ns = setUp("off", "{x: 0}", "{x: 1000000}");
        await().atMost(Duration.ofSeconds(10)).until(() -> !settings.current(ns).enabled());
        List<Integer> xs = new ArrayList<>();
        for (int i = 0; i < 1100; i++) {
            xs.add(i);
        }
        insert("off", xs, 0);
        ChunkRange middle = chunksWithin(ns, 0, 1_000_000).getFirst().range();
        assertThat(tracker.bytesWritten(ns, middle)).as("counted, never reset by a split attempt").isGreaterThan(MAX_CHUNK);
        assertThat(splitsOf(ns)).isZero();
    }

    // --- helpers ---

    /** Shards {@code autosplit.<coll>} on {@code {x: 1}}: chunks at the two bounds given (none: one chunk, all of it). */
    private String setUp(String coll, String low, String high) {
        String ns = "autosplit." + coll;
        ShardedCollection sharded = collection(ns, "{x: 1}");
        List<Chunk> chunks = low == null
                ? List.of(chunk(sharded, "{x: {$minKey: 1}}", "{x: 0}", SHARD_NAME, 1, 0), chunk(sharded, "{x: 0}", "{x: {$maxKey: 1}}", SHARD_NAME, 1, 1))
                : List.of(chunk(sharded, "{x: {$minKey: 1}}", low, SHARD_NAME, 1, 0), chunk(sharded, low, high, SHARD_NAME, 1, 1),
                        chunk(sharded, high, "{x: {$maxKey: 1}}", SHARD_NAME, 1, 2));
        CONFIG.putRoutingTable(sharded, chunks);
        CONFIG.putCollectionFields(ns, new BsonDocument("maxChunkSizeBytes", new BsonInt64(MAX_CHUNK)));
        CONFIG.registerShard(SHARD_NAME, "http://127.0.0.1:" + port);
        BsonDocument reply = run("autosplit", "{createIndexes: '" + coll + "', indexes: [{key: {x: 1}, name: 'x_1'}]}");
        assertThat(ErrorReplies.isError(reply)).as(reply.toJson()).isFalse();
        sharding.refresh(ns);
        assertThat(settings.current(ns).maxChunkSizeBytes()).isEqualTo(MAX_CHUNK);
        return ns;
    }

    private void insert(String coll, List<Integer> xs, int firstId) {
        BsonArray docs = new BsonArray();
        for (int i = 0; i < xs.size(); i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(firstId + i)).append("x", new BsonInt32(xs.get(i))).append("pad", new BsonString(PAD)));
        }
        BsonDocument reply = run("autosplit", new BsonDocument("insert", new BsonString(coll)).append("documents", docs));
        assertThat(ErrorReplies.isError(reply) || reply.containsKey("writeErrors")).as(reply.toJson()).isFalse();
        assertThat(reply.getNumber("n").intValue()).isEqualTo(xs.size());
    }

    private static long averageDocumentBytes() {
        return BsonBytes.encode(new BsonDocument("_id", new BsonInt32(0)).append("x", new BsonInt32(0)).append("pad", new BsonString(PAD))).length;
    }

    private static boolean inRange(ChunkRange range, int x) {
        BsonDocument key = new BsonDocument("x", new BsonInt32(x));
        return BsonOrder.compare(range.min(), key) <= 0 && BsonOrder.compare(key, range.max()) < 0;
    }

    /** The chunks of {@code ns} inside {@code [x: low, x: high)}, in key order. */
    private static List<Chunk> chunksWithin(String ns, int low, int high) {
        BsonDocument lo = new BsonDocument("x", new BsonInt32(low));
        BsonDocument hi = new BsonDocument("x", new BsonInt32(high));
        return CONFIG.chunks(ns).stream().filter(c -> BsonOrder.compare(c.range().min(), lo) >= 0 && BsonOrder.compare(c.range().max(), hi) <= 0)
                .sorted((a, b) -> BsonOrder.compare(a.range().min(), b.range().min())).toList();
    }

    private static long splitsOf(String ns) {
        return CONFIG.splitCommits().stream().filter(c -> c.getString("_configsvrCommitChunkSplit").getValue().equals(ns)).count();
    }

    private static BsonDocument moveOf(String ns, ChunkRange range) {
        return CONFIG.moveRanges().stream().filter(m -> m.getString("_configsvrMoveRange").getValue().equals(ns)
                && m.getArray("bounds").get(0).equals(range.min()) && m.getArray("bounds").get(1).equals(range.max())
                && !m.getString("toShard").getValue().equals(SHARD_NAME)).findFirst().orElse(null);
    }

    private double count(String outcome) {
        Counter counter = meters.find(ShardMetrics.AUTOSPLITS).tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    private long documentCount(String coll) {
        return run("autosplit", "{count: '" + coll + "'}").getNumber("n").longValue();
    }

    private List<BsonDocument> documentsOf(String db, String coll, int expected) {
        return run(db, new BsonDocument("find", new BsonString(coll)).append("projection", new BsonDocument("pad", new BsonInt32(0)))
                .append("batchSize", new BsonInt32(expected + 1))).getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }
}
