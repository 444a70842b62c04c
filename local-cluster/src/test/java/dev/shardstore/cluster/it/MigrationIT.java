package dev.shardstore.cluster.it;

import static dev.shardstore.cluster.it.MigrationCluster.other;
import static dev.shardstore.cluster.it.ItSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Live chunk migration end to end (docs/sharding-protocol.md, "Chunk migration") on a local cluster of separate processes
 * (2 shards, 1 router, ports offset by 2500, test commands on, {@code orphanCleanupDelaySecs} 2 s):
 * <ul>
 *   <li>{@code moveChunk} under a concurrent writer through the router (inserts, updates, deletes inside and outside the
 *       moving range): every acknowledged write is readable exactly once with its last acknowledged value; a cursor
 *       opened before the commit and drained after it returns every document once; the donor's orphans are deleted
 *       afterwards, and the changelog records the migration;</li>
 *   <li>the version rules of a move, read from the catalog after real moves (the donor keeps a chunk; the donor gives
 *       its last chunk);</li>
 *   <li>{@code moveRange} splitting off a sub-range, a move to the owner, bad input.</li>
 * </ul>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@OnSharedCluster
class MigrationIT {
    private static final String DB = "migit";
    private static MigrationCluster c;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> c == null ? null : c.cluster);

    @BeforeAll
    static void onSharedCluster(MigrationCluster shared) {
        c = shared;
    }

    @Test
    @Order(1)
    void moveChunkUnderConcurrentWritesKeepsEveryAcknowledgedWriteExactlyOnce() throws Exception {
        String ns = DB + ".live";
        c.shardAndFill(DB, "live", 3000, 1000, 2000);
        String donor = c.ownerOf(ns, 1000);
        String recipient = other(donor);

        // a cursor over everything, opened before the migration and drained after its commit
        BsonDocument opened = RouterClient.requireOk("find", c.router.run(DB, ExtendedJson.parse(
                "{\"find\": \"live\", \"filter\": {\"_id\": {\"$lt\": 3000}}, \"batchSize\": 100}"))).getDocument("cursor");
        Map<Integer, Integer> seenByCursor = new HashMap<>();
        opened.getArray("firstBatch").forEach(d -> seenByCursor.merge(d.asDocument().getInt32("_id").getValue(), 1, Integer::sum));
        long cursorId = opened.getNumber("id").longValue();

        AcknowledgedWriter writerA;
        AcknowledgedWriter writerB;
        BsonDocument moved;
        writerA = new AcknowledgedWriter(c.router, DB, "live", "a", 100_000, 3000, 1);
        writerB = new AcknowledgedWriter(c.router, DB, "live", "b", 200_000, 3000, 2);
        try (writerA; writerB) {
            waitUntil(() -> writerA.statements() + writerB.statements() > 40, Duration.ofSeconds(60), "writes before the move");
            moved = c.moveChunk(ns, 1000, recipient);
            long after = writerA.statements() + writerB.statements();
            waitUntil(() -> writerA.statements() + writerB.statements() > after + 40, Duration.ofSeconds(60), "writes after the move");
        }
        RouterClient.requireOk("moveChunk", moved);
        assertThat(moved.getNumber("millis").longValue()).isNotNegative();
        assertThat(writerA.failures() + writerB.failures()).as("no write failed: the router retried the ones the section held").isZero();
        assertThat(c.ownerOf(ns, 1000)).isEqualTo(recipient);

        int written = writerA.verify(c.router) + writerB.verify(c.router);
        List<BsonDocument> original = AcknowledgedWriter.findAll(c.router, DB, "live", ExtendedJson.parse("{\"_id\": {\"$lt\": 3000}}"));
        assertThat(original).hasSize(3000);
        assertThat(c.count(DB, "live")).isEqualTo(3000 + written);

        while (cursorId != 0) {
            BsonDocument next = RouterClient.requireOk("getMore", c.router.run(DB, new BsonDocument("getMore", new BsonInt64(cursorId))
                    .append("collection", new BsonString("live")).append("batchSize", new BsonInt32(500)))).getDocument("cursor");
            next.getArray("nextBatch").forEach(d -> seenByCursor.merge(d.asDocument().getInt32("_id").getValue(), 1, Integer::sum));
            cursorId = next.getNumber("id").longValue();
        }
        assertThat(seenByCursor).as("the cursor returned every document once").hasSize(3000).allSatisfy((id, n) -> assertThat(n).isOne());

        RouterClient.requireOk("cleanupOrphaned", c.router.run("admin", new BsonDocument("cleanupOrphaned", new BsonString(ns))));
        for (String shard : MigrationCluster.SHARDS) {
            assertThat(c.distribution(shard, ns).getNumber("numOrphanedDocs").longValue()).as(shard).isZero();
        }
        assertThat(c.ownedOnShards(ns)).isEqualTo(3000 + written);
        waitUntil(() -> c.settled(ns), Duration.ofSeconds(30), "nothing of the migration left on the shards");

        List<String> changes = c.ok("config", "{\"find\": \"changelog\", \"filter\": {\"ns\": \"" + ns + "\"}}").getDocument("cursor")
                .getArray("firstBatch").stream().map(e -> e.asDocument().getString("what").getValue()).toList();
        assertThat(changes).contains("moveChunk.start", "moveChunk.commit", "moveChunk.from", "moveChunk.to");
        BsonDocument from = c.ok("config", "{\"find\": \"changelog\", \"filter\": {\"ns\": \"" + ns + "\", \"what\": \"moveChunk.from\"}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument().getDocument("details");
        assertThat(from.getNumber("documentsCloned").longValue()).isGreaterThanOrEqualTo(1000);
        assertThat(from.getDocument("steps").keySet()).contains("start", "clone", "criticalSection", "commit", "total");
    }

    @Test
    @Order(2)
    void theVersionsOfMovesFollowTheReferenceRules() {
        String ns = DB + ".versions";
        c.shardAndFill(DB, "versions", 100, 50);
        List<BsonDocument> before = c.chunks(ns);
        assertThat(versions(before)).containsExactly("2|1", "2|2"); // split of the first chunk 1|0, shard version == collection version
        String donor = c.ownerOf(ns, 50);
        String recipient = other(donor);

        // the donor keeps a chunk: the moved chunk gets (cv.major + 1)|0, the donor's remaining one (cv.major + 1)|1
        RouterClient.requireOk("move", c.moveChunk(ns, 50, recipient));
        List<BsonDocument> afterFirst = c.chunks(ns);
        assertThat(versions(afterFirst)).containsExactly("3|1", "3|0");
        assertThat(afterFirst).extracting(ch -> ch.getString("shard").getValue()).containsExactly(donor, recipient);
        assertThat(afterFirst.get(1).getArray("history")).extracting(h -> h.asDocument().getString("shard").getValue())
                .containsExactly(recipient, donor);
        assertThat(afterFirst.get(1).getArray("history").get(0).asDocument().isTimestamp("validAfter")).isTrue();

        // the donor gives its last chunk: (cv.major + 1)|0, and the donor has no chunk left
        BsonDocument last = c.router.run("admin", ExtendedJson.parse("{\"moveChunk\": \"" + ns + "\", \"bounds\": [{\"x\": {\"$minKey\": 1}}, "
                + "{\"x\": 50}], \"to\": \"" + recipient + "\"}"));
        RouterClient.requireOk("move the last chunk", last);
        List<BsonDocument> afterSecond = c.chunks(ns);
        assertThat(versions(afterSecond)).containsExactly("4|0", "3|0");
        assertThat(afterSecond).extracting(ch -> ch.getString("shard").getValue()).containsOnly(recipient);
        assertThat(c.count(DB, "versions")).isEqualTo(100);
    }

    @Test
    @Order(3)
    void moveRangeSplitsOffItsRangeAndAMoveToTheOwnerMovesNothing() {
        String ns = DB + ".ranges";
        c.shardAndFill(DB, "ranges", 300);
        String owner = c.chunks(ns).getFirst().getString("shard").getValue();
        RouterClient.requireOk("moveRange", c.router.run("admin", ExtendedJson.parse("{\"moveRange\": \"" + ns
                + "\", \"min\": {\"x\": 100}, \"max\": {\"x\": 200}, \"toShard\": \"" + other(owner) + "\"}")));
        List<BsonDocument> chunks = c.chunks(ns);
        assertThat(chunks).extracting(ch -> ch.getString("shard").getValue()).containsExactly(owner, other(owner), owner);
        assertThat(chunks.get(1).getDocument("min").getNumber("x").intValue()).isEqualTo(100);
        assertThat(chunks.get(1).getDocument("max").getNumber("x").intValue()).isEqualTo(200);
        assertThat(c.count(DB, "ranges")).isEqualTo(300);

        BsonDocument noop = c.moveChunk(ns, 150, other(owner));
        RouterClient.requireOk("move to the owner", noop);
        assertThat(c.chunks(ns)).hasSize(3);
    }

    @Test
    @Order(4)
    void badMovesAreClientErrorsNamingTheField() {
        c.ok(DB, "{\"insert\": \"plain\", \"documents\": [{\"_id\": 1}]}");
        assertError(c.moveChunk("nosuchdb.c", 0, "shard1"), 26, "nosuchdb");
        assertError(c.moveChunk(DB + ".plain", 0, "shard1"), 118, "not sharded");
        assertError(c.moveChunk(DB + ".ranges", 0, "shard9"), 70, "'to'");
        assertError(c.router.run("admin", ExtendedJson.parse("{\"moveChunk\": \"" + DB + ".ranges\", \"bounds\": [{\"x\": 0}, {\"x\": 10}], "
                + "\"to\": \"shard1\"}")), 2, "'bounds'");
        assertError(c.router.run("admin", ExtendedJson.parse("{\"moveChunk\": \"" + DB + ".ranges\", \"find\": {\"y\": 1}, "
                + "\"to\": \"shard1\"}")), 61, "'find'");
    }

    private static void assertError(BsonDocument reply, int code, String part) {
        assertThat(RouterClient.isOk(reply)).as(reply.toJson()).isFalse();
        assertThat(reply.getInt32("code").getValue()).as(reply.toJson()).isEqualTo(code);
        assertThat(reply.getString("errmsg").getValue()).contains(part);
    }

    /** The chunks' versions as "major|minor", in key order. */
    private static List<String> versions(List<BsonDocument> chunks) {
        return chunks.stream().map(ch -> ch.getDocument("lastmod")).map(v -> v.getNumber("major").intValue() + "|" + v.getNumber("minor").intValue())
                .toList();
    }
}
