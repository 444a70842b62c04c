package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Many clients' large sorted cursors against real shard processes (the shared cluster; docs/architecture.md "Memory
 * limits"), issue 40's test: fifty clients at once each open a sorted find whose sort is many times the blocking sort
 * budget (lowered to 256 KiB through the router), with the services' open-cursor cap
 * ({@code internalQueryMaxOpenCursors}) set 20 above the cursors already open. The cap refuses the excess with
 * OperationFailed (96) naming it; every cursor admitted is read to its end, complete and in order, while the others are
 * refused; the shards stay UP (their results are held as spill files, not in their heaps), their spill directories are
 * empty once the cursors ended, and the cluster serves as before once the parameters are back.
 */
@OnSharedCluster
class MemoryLimitsIT {
    private static final String DB = "memit";
    private static final int DOCUMENTS = 4000;
    private static final int CLIENTS = 50;
    private static final int ROOM = 20;
    private static MigrationCluster c;

    @BeforeAll
    static void onTheSharedCluster(MigrationCluster shared) {
        c = shared;
        Random random = new Random(40);
        for (int from = 0; from < DOCUMENTS; from += 1000) {
            BsonArray docs = new BsonArray();
            for (int i = from; i < from + 1000; i++) {
                docs.add(new BsonDocument("_id", new BsonInt32(i)).append("r", new BsonInt64(random.nextLong()))
                        .append("pad", new BsonString("x".repeat(400))));
            }
            RouterClient.requireOk("insert", c.router.run(DB, new BsonDocument("insert", new BsonString("big")).append("documents", docs)));
        }
    }

    @Test
    void fiftyClientsWithLargeSortedCursorsAreCappedNotOutOfMemory() throws Exception {
        long open = ExtendedJson.parse(ItSupport.get(c.cluster.routerUrl(1) + "/actuator/routingTable")).getNumber("openCursors").longValue();
        setParameter("internalQueryMaxBlockingSortMemoryUsageBytes", 256 * 1024);
        setParameter("internalQueryMaxOpenCursors", open + ROOM);
        List<BsonDocument> admitted = new ArrayList<>();
        List<BsonDocument> refused = new ArrayList<>();
        try {
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<BsonDocument>> replies = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    // each client its own session: the per-client cap (1000) stays out of the way
                    BsonDocument lsid = ExtendedJson.parse("{\"id\": {\"$uuid\": \"" + java.util.UUID.randomUUID() + "\"}}");
                    replies.add(clients.submit(() -> {
                        start.await();
                        BsonDocument answer = c.router.run(DB, ExtendedJson.parse("{\"find\": \"big\", \"sort\": {\"r\": 1}, \"batchSize\": 100}")
                                .append("lsid", lsid));
                        return answer.append("clientLsid", lsid);
                    }));
                }
                start.countDown();
                for (Future<BsonDocument> reply : replies) {
                    BsonDocument answer = reply.get();
                    (answer.getNumber("ok").intValue() == 1 ? admitted : refused).add(answer);
                }
            } finally {
                clients.shutdownNow();
            }
            assertThat(refused).as("refused past the cap").hasSizeGreaterThanOrEqualTo(CLIENTS - ROOM).allSatisfy(answer -> {
                assertThat(answer.getNumber("code").intValue()).as("%s", answer).isEqualTo(96);
                assertThat(answer.getString("errmsg").getValue()).contains("internalQueryMaxOpenCursors");
            });
            assertThat(admitted).as("admitted under the cap").isNotEmpty().hasSizeLessThanOrEqualTo(ROOM);
            for (BsonDocument reply : admitted) {
                assertSortedAndComplete(reply);
            }
        } finally {
            setParameter("internalQueryMaxOpenCursors", 10_000);
            setParameter("internalQueryMaxBlockingSortMemoryUsageBytes", 100L * 1024 * 1024);
        }
        for (String shard : MigrationCluster.SHARDS) {
            assertThat(ItSupport.get(c.cluster.url(shard) + "/actuator/health")).as("%s stays up", shard).contains("\"UP\"");
            Path spill = c.cluster.home().dir().resolve("spill").resolve(shard);
            if (Files.isDirectory(spill)) {
                try (Stream<Path> left = Files.list(spill)) {
                    assertThat(left.toList()).as("%s's spill files, once every cursor ended", shard).isEmpty();
                }
            }
        }
        assertThat(c.count(DB, "big")).isEqualTo(DOCUMENTS);
    }

    /** Reads the cursor of {@code reply} to its end: every document once, in {@code r} order. */
    private static void assertSortedAndComplete(BsonDocument reply) {
        List<BsonValue> documents = new ArrayList<>(reply.getDocument("cursor").getArray("firstBatch"));
        long id = reply.getDocument("cursor").getNumber("id").longValue();
        while (id != 0) {
            BsonDocument next = RouterClient.requireOk("getMore", c.router.run(DB, new BsonDocument("getMore", new BsonInt64(id))
                    .append("collection", new BsonString("big")).append("batchSize", new BsonInt32(1000))
                    .append("lsid", reply.getDocument("clientLsid")))).getDocument("cursor");
            documents.addAll(next.getArray("nextBatch"));
            id = next.getNumber("id").longValue();
        }
        assertThat(documents).hasSize(DOCUMENTS);
        for (int i = 1; i < documents.size(); i++) {
            assertThat(documents.get(i - 1).asDocument().getInt64("r").getValue())
                    .isLessThanOrEqualTo(documents.get(i).asDocument().getInt64("r").getValue());
        }
    }

    private static void setParameter(String name, long value) {
        ItSupport.ok(c.router, "admin", "{\"setParameter\": 1, \"" + name + "\": " + value + "}");
    }
}
