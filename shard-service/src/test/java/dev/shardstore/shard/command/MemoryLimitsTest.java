package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.cursor.CursorManager;
import dev.shardstore.engine.spill.MemoryBudgets;
import dev.shardstore.support.parameter.ServerParameter;
import dev.shardstore.support.parameter.ServerParameters;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The budgets of blocking sorts and groups, spilling and the cursor caps on a real shard (docs/architecture.md "Memory
 * limits"): the budgets are lowered with {@code setParameter} so that 1500 small documents are many times over them.
 */
class MemoryLimitsTest extends ShardIntegrationTest {
    private static final String DB = "memorydb";
    private static final int DOCUMENTS = 1500;

    @Autowired
    MemoryBudgets budgets;
    @Autowired
    ServerParameters parameters;
    @Autowired
    CursorManager cursors;

    private final List<BsonDocument> inserted = new ArrayList<>();
    /** The parameters as the test found them (the shared test shard's start-up values), restored after it. */
    private BsonDocument before;

    @BeforeEach
    void lowBudgetsAndData() {
        before = run("admin", "{getParameter: '*'}");
        setParameter(ServerParameters.SORT_MEMORY, new BsonInt64(16 * 1024));
        setParameter(ServerParameters.GROUP_MEMORY, new BsonInt64(4 * 1024));
        if (documentsOf(DB, "items").isEmpty()) {
            Random random = new Random(3);
            BsonArray batch = new BsonArray();
            for (int i = 0; i < DOCUMENTS; i++) {
                batch.add(new BsonDocument("_id", new BsonInt32(i)).append("g", new BsonInt32(random.nextInt(97)))
                        .append("s", new BsonString(Long.toString(random.nextLong(), 36))).append("v", new BsonInt32(random.nextInt(1000))));
            }
            assertThat(run(DB, new BsonDocument("insert", new BsonString("items")).append("documents", batch)).getNumber("n").intValue())
                    .isEqualTo(DOCUMENTS);
        }
        inserted.clear();
        inserted.addAll(all(run(DB, "{find: 'items', batchSize: 100}"), "items"));
        assertThat(inserted).hasSize(DOCUMENTS);
    }

    @AfterEach
    void defaults() {
        for (ServerParameter parameter : ServerParameters.CATALOG) {
            setParameter(parameter, before.get(parameter.name()));
        }
    }

    @Test
    void aSortAndAGroupOverTheirBudgetsSpillAndAnswerAsInMemory() {
        List<BsonDocument> expectedSort = inserted.stream()
                .sorted(Comparator.comparing((BsonDocument d) -> d.getString("s").getValue()).thenComparing(d -> d.getInt32("_id").getValue()))
                .toList();
        BsonDocument first = run(DB, "{aggregate: 'items', pipeline: [{$sort: {s: 1, _id: 1}}], cursor: {batchSize: 50}}");
        assertThat(budgets.spillDirectory().files()).as("the cursor reads the $sort's runs").isNotEmpty()
                .allSatisfy(f -> assertThat(f.getFileName().toString()).as("not spilled a second time as the cursor's result").startsWith("sort"));
        assertThat(all(first, "items")).isEqualTo(expectedSort);
        assertThat(budgets.spillDirectory().files()).as("gone once the cursor is exhausted").isEmpty();

        // a $lookup reads the database while the output is read: that output is read now and held, as any unsorted one
        BsonDocument joined = run(DB, "{aggregate: 'items', pipeline: [{$sort: {s: 1, _id: 1}}, {$lookup: {from: 'none', localField: 'g',"
                + " foreignField: 'g', as: 'j'}}, {$project: {j: 0}}], cursor: {batchSize: 50}}");
        assertThat(budgets.spillDirectory().files()).as("the held result").isNotEmpty()
                .anySatisfy(f -> assertThat(f.getFileName().toString()).startsWith("result"));
        assertThat(all(joined, "items")).isEqualTo(expectedSort);
        assertThat(budgets.spillDirectory().files()).as("gone once the cursor is exhausted").isEmpty();

        Map<Integer, int[]> groups = new TreeMap<>();
        inserted.forEach(d -> {
            int[] sums = groups.computeIfAbsent(d.getInt32("g").getValue(), g -> new int[2]);
            sums[0]++;
            sums[1] += d.getInt32("v").getValue();
        });
        List<BsonDocument> expectedGroups = groups.entrySet().stream().map(e -> new BsonDocument("_id", new BsonInt32(e.getKey()))
                .append("n", new BsonInt32(e.getValue()[0])).append("total", new BsonInt32(e.getValue()[1]))).toList();
        BsonDocument grouped = run(DB, "{aggregate: 'items', pipeline: [{$group: {_id: '$g', n: {$sum: 1}, total: {$sum: '$v'}}}],"
                + " cursor: {batchSize: 1000}, allowDiskUse: true}");
        assertThat(all(grouped, "items")).isEqualTo(expectedGroups);
        assertThat(budgets.spillDirectory().files()).isEmpty();
    }

    @Test
    void withoutDiskUseTheyFailWith292AndTheShardKeepsServing() {
        assertError(run(DB, "{aggregate: 'items', pipeline: [{$sort: {s: 1}}], cursor: {}, allowDiskUse: false}"), 292, "$sort");
        assertError(run(DB, "{aggregate: 'items', pipeline: [{$group: {_id: '$_id'}}], cursor: {}, allowDiskUse: false}"), 292, "$group");
        setParameter(ServerParameters.ALLOW_DISK_USE_BY_DEFAULT, BsonBoolean.FALSE);
        assertError(run(DB, "{find: 'items', sort: {s: -1}}"), 292, "Sort exceeded memory limit of 16384 bytes");
        assertThat(budgets.spillDirectory().files()).isEmpty();
        assertThat(run(DB, "{find: 'items', sort: {s: -1}, limit: 3}").getDocument("cursor").getArray("firstBatch")).hasSize(3);
        assertThat(run(DB, "{find: 'items', filter: {_id: 7}}").getDocument("cursor").getArray("firstBatch")).hasSize(1);
    }

    @Test
    void aSortedFindOverTheBudgetSpillsAndAKilledCursorDeletesItsFiles() {
        List<BsonDocument> expected = inserted.stream().sorted(Comparator.comparing((BsonDocument d) -> d.getInt32("v").getValue()).reversed()
                .thenComparing(d -> d.getInt32("_id").getValue())).toList();
        assertThat(all(run(DB, "{find: 'items', sort: {v: -1, _id: 1}, batchSize: 100}"), "items")).isEqualTo(expected);
        assertThat(budgets.spillDirectory().files()).isEmpty();

        long id = cursorId(run(DB, "{find: 'items', sort: {v: -1, _id: 1}, batchSize: 10, allowDiskUse: true}"));
        assertThat(id).isNotZero();
        assertThat(budgets.spillDirectory().files()).isNotEmpty();
        assertThat(run(DB, new BsonDocument("killCursors", new BsonString("items")).append("cursors", new BsonArray(List.of(new BsonInt64(id)))))
                .getArray("cursorsKilled")).hasSize(1);
        assertThat(budgets.spillDirectory().files()).isEmpty();

        run(DB, "{find: 'items', sort: {v: -1}, batchSize: 10, singleBatch: true}");
        assertThat(budgets.spillDirectory().files()).as("a single batch keeps nothing").isEmpty();
    }

    @Test
    void explainReportsTheBlockingSortsSpills() {
        BsonDocument spilled = run(DB, "{explain: {find: 'items', sort: {s: 1}}, verbosity: 'executionStats'}")
                .getDocument("executionStats").getDocument("executionStages");
        assertThat(spilled.getString("stage").getValue()).isEqualTo("SORT");
        assertThat(spilled.getBoolean("usedDisk").getValue()).isTrue();
        assertThat(spilled.getNumber("spills").longValue()).isGreaterThan(1);
        assertThat(spilled.getNumber("spilledBytes").longValue()).isGreaterThan(16 * 1024);
        BsonDocument topK = run(DB, "{explain: {find: 'items', sort: {s: 1}, limit: 5}, verbosity: 'executionStats'}")
                .getDocument("executionStats").getDocument("executionStages");
        assertThat(topK.getBoolean("usedDisk").getValue()).isFalse();
        assertThat(topK.getNumber("spills").longValue()).isZero();
        assertThat(budgets.spillDirectory().files()).isEmpty();
        assertThat(run(DB, "{explain: {find: 'items', sort: {_id: 1}}, verbosity: 'executionStats'}").getDocument("executionStats")
                .containsKey("executionStages")).as("an _id-ordered scan sorts nothing").isFalse();
    }

    @Test
    void concurrentClientsPastTheCursorCapsAreRefusedAndTheOthersKeepWorking() throws Exception {
        setParameter(ServerParameters.MAX_CURSORS_PER_CLIENT, new BsonInt64(2));
        LogicalSessionId a = LogicalSessionId.random();
        List<Long> held = new ArrayList<>();
        held.add(openCursor(a));
        held.add(openCursor(a));
        assertError(run(DB, cursorCommand(a)), 96, "internalQueryMaxOpenCursorsPerClient is 2");
        held.add(openCursor(LogicalSessionId.random())); // another client is not affected
        kill(held);
        held.clear();
        held.add(openCursor(a)); // a's cursors are released with their kill
        kill(held);
        held.clear();

        setParameter(ServerParameters.MAX_CURSORS_PER_CLIENT, ServerParameters.MAX_CURSORS_PER_CLIENT.defaultValue());
        int clients = 8;
        int room = 4;
        setParameter(ServerParameters.MAX_CURSORS, new BsonInt64(openCursors() + room));
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<BsonDocument>> replies = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                replies.add(pool.submit(() -> {
                    start.await();
                    return run(DB, cursorCommand(LogicalSessionId.random()));
                }));
            }
            start.countDown();
            int refused = 0;
            for (Future<BsonDocument> reply : replies) {
                BsonDocument answer = reply.get();
                if (answer.getNumber("ok").intValue() == 1) {
                    held.add(cursorId(answer));
                } else {
                    assertThat(answer.getInt32("code").getValue()).as(answer.toJson()).isEqualTo(96);
                    assertThat(answer.getString("errmsg").getValue()).contains("internalQueryMaxOpenCursors is");
                    refused++;
                }
            }
            assertThat(refused).isGreaterThanOrEqualTo(clients - room);
            assertThat(held).hasSizeLessThanOrEqualTo(room);
        } finally {
            pool.shutdownNow();
        }
        kill(held);
        assertThat(run(DB, "{find: 'items', filter: {_id: 1}}").getNumber("ok").intValue()).isEqualTo(1);
    }

    @Test
    void getParameterAndSetParameterHaveMongoDbsShapes() {
        assertThat(run("admin", "{getParameter: 1, internalQueryMaxBlockingSortMemoryUsageBytes: 1}"))
                .isEqualTo(ExtendedJson.parse("{internalQueryMaxBlockingSortMemoryUsageBytes: {$numberLong: '16384'}, ok: 1.0}"));
        assertThat(run("admin", "{getParameter: '*'}").keySet()).containsAll(ServerParameters.CATALOG.stream().map(ServerParameter::name).toList());
        assertThat(run("admin", "{getParameter: {showDetails: true}, allowDiskUseByDefault: 1}").getDocument("allowDiskUseByDefault"))
                .isEqualTo(ExtendedJson.parse("{value: true, settableAtRuntime: true, settableAtStartup: true}"));
        assertThat(run("admin", "{setParameter: 1, internalDocumentSourceGroupMaxMemoryBytes: 5000}"))
                .isEqualTo(ExtendedJson.parse("{was: {$numberLong: '4096'}, ok: 1.0}"));
        assertThat(parameters.longValue(ServerParameters.GROUP_MEMORY)).isEqualTo(5000);
        assertError(run("admin", "{setParameter: 1, noSuchParameter: 1}"), 72, "noSuchParameter");
        assertError(run("admin", "{getParameter: 1, noSuchParameter: 1}"), 72, "noSuchParameter");
        assertError(run("admin", "{setParameter: 1, allowDiskUseByDefault: 'yes'}"), 2, "allowDiskUseByDefault");
        assertError(run("admin", "{setParameter: 1, internalQueryMaxBlockingSortMemoryUsageBytes: 0}"), 2, "not in [1,");
        assertError(run(DB, "{setParameter: 1, allowDiskUseByDefault: false}"), 13, "admin");
    }

    private void setParameter(ServerParameter parameter, BsonValue value) {
        BsonDocument reply = run("admin", new BsonDocument("setParameter", new BsonInt32(1)).append(parameter.name(), value));
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
    }

    private int openCursors() {
        return cursors.openCount();
    }

    private static BsonDocument cursorCommand(LogicalSessionId lsid) {
        return ExtendedJson.parse("{find: 'items', batchSize: 1}").append("lsid", lsid.toBson());
    }

    private long openCursor(LogicalSessionId lsid) {
        BsonDocument reply = run(DB, cursorCommand(lsid));
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
        return cursorId(reply);
    }

    private void kill(List<Long> ids) {
        BsonArray cursors = new BsonArray(ids.stream().<BsonValue>map(BsonInt64::new).toList());
        run(DB, new BsonDocument("killCursors", new BsonString("items")).append("cursors", cursors));
    }

    /** Every document of a cursor reply, fetching the rest with getMore. */
    private List<BsonDocument> all(BsonDocument reply, String collection) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
        List<BsonDocument> documents = new ArrayList<>();
        reply.getDocument("cursor").getArray("firstBatch").forEach(d -> documents.add(d.asDocument()));
        long id = cursorId(reply);
        while (id != 0) {
            BsonDocument next = run(DB, new BsonDocument("getMore", new BsonInt64(id)).append("collection", new BsonString(collection))
                    .append("batchSize", new BsonInt32(100)));
            next.getDocument("cursor").getArray("nextBatch").forEach(d -> documents.add(d.asDocument()));
            id = next.getDocument("cursor").getInt64("id").getValue();
        }
        return documents;
    }

    private static long cursorId(BsonDocument reply) {
        return reply.getDocument("cursor").getInt64("id").getValue();
    }

    private static void assertError(BsonDocument reply, int code, String messagePart) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isZero();
        assertThat(reply.getInt32("code").getValue()).as(reply.toJson()).isEqualTo(code);
        assertThat(reply.getString("errmsg").getValue()).contains(messagePart);
    }
}
