package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Single-document writes without the shard key (MongoDB 7.1) on real processes (2 shards, 1 router, ports offset by
 * 1700): {@code updateOne} and {@code findAndModify} whose filter names no shard key field, sent back to back while
 * another thread splits the chunk holding the document and moves it between the shards — each write changes exactly one
 * document (n: 1 every time, never 0 or 2), and the document ends with one increment per acknowledged write, once. An
 * upsert without the shard key inserts once, on the shard owning the new document's key. Under a non-simple collation a
 * string shard key pins no shard: such writes go the same read-then-write way (or to every shard when multi).
 */
@OnSharedCluster
class WriteWithoutShardKeyIT {
    private static final String DB = "wwsk";
    private static final String NS = DB + ".c";
    private static MigrationCluster c;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> c == null ? null : c.cluster);

    @BeforeAll
    static void onSharedCluster(MigrationCluster shared) {
        c = shared;
    }

    @Test
    void writesWithoutTheShardKeyChangeExactlyOneDocumentWhileItsChunkSplitsAndMoves() throws Exception {
        c.shardAndFill(DB, "c", 400, 200);
        c.ok(DB, "{\"update\": \"c\", \"updates\": [{\"q\": {\"x\": 300}, \"u\": {\"$set\": {\"k\": \"target\", \"n\": 0, \"m\": 0}}}]}");

        AtomicBoolean moving = new AtomicBoolean(true);
        CompletableFuture<List<String>> mover = CompletableFuture.supplyAsync(() -> {
            List<String> done = new ArrayList<>();
            try {
                for (int round = 0; round < 4; round++) {
                    c.ok("admin", "{\"split\": \"" + NS + "\", \"middle\": {\"x\": " + (290 + round) + "}}");
                    String owner = c.ownerOf(NS, 290 + round); // the chunk holding x: 300 starts there
                    BsonDocument moved = c.router.run("admin", ExtendedJson.parse("{\"moveChunk\": \"" + NS + "\", \"find\": {\"x\": 300}, \"to\": \""
                            + MigrationCluster.other(owner) + "\"}"));
                    done.add(moved.toJson());
                }
                return done;
            } finally {
                moving.set(false);
            }
        }, Thread.ofVirtual()::start);

        int updates = 0;
        int modifies = 0;
        List<String> wrong = new ArrayList<>();
        while (moving.get() || updates < 20) {
            BsonDocument updated = c.router.run(DB, ExtendedJson.parse(
                    "{\"update\": \"c\", \"updates\": [{\"q\": {\"k\": \"target\"}, \"u\": {\"$inc\": {\"n\": 1}}}]}"));
            if (updated.getNumber("ok").intValue() != 1 || updated.getNumber("n").intValue() != 1 || updated.containsKey("writeErrors")) {
                wrong.add(updated.toJson());
            } else {
                updates++;
            }
            BsonDocument modified = c.router.run(DB, ExtendedJson.parse(
                    "{\"findAndModify\": \"c\", \"query\": {\"k\": \"target\"}, \"update\": {\"$inc\": {\"m\": 1}}, \"new\": true}"));
            if (modified.getNumber("ok").intValue() != 1 || !modified.isDocument("value")) {
                wrong.add(modified.toJson());
            } else {
                modifies++;
                assertThat(modified.getDocument("value").getNumber("m").intValue()).isEqualTo(modifies);
            }
        }
        List<String> moves = mover.get(10, TimeUnit.MINUTES);

        assertThat(moves).hasSize(4).allSatisfy(m -> assertThat(m).contains("\"ok\": 1"));
        assertThat(wrong).as("every write changed exactly one document").isEmpty();
        List<BsonDocument> targets = find("{\"k\": \"target\"}");
        assertThat(targets).hasSize(1);
        assertThat(targets.getFirst().getNumber("n").intValue()).isEqualTo(updates);
        assertThat(targets.getFirst().getNumber("m").intValue()).isEqualTo(modifies);
        assertThat(c.count(DB, "c")).isEqualTo(400);
    }

    @Test
    void anUpsertWithoutTheShardKeyInsertsOnceOnTheOwnerOfItsKey() {
        c.shardAndFill(DB, "u", 10, 5);
        String owner = MigrationCluster.other(c.ownerOf(DB + ".u", 5));
        RouterClient.requireOk("moveChunk", c.moveChunk(DB + ".u", 5, owner)); // x: 7 then lives apart from the primary's chunk

        BsonDocument first = c.ok(DB, "{\"update\": \"u\", \"updates\": [{\"q\": {\"k\": \"new\"}, \"u\": {\"$set\": {\"x\": 7}, \"$inc\": {\"n\": 1}},"
                + " \"upsert\": true}]}");
        BsonDocument second = c.ok(DB, "{\"update\": \"u\", \"updates\": [{\"q\": {\"k\": \"new\"}, \"u\": {\"$set\": {\"x\": 7}, \"$inc\": {\"n\": 1}},"
                + " \"upsert\": true}]}");

        assertThat(first.getArray("upserted")).hasSize(1);
        assertThat(second.containsKey("upserted")).isFalse();
        assertThat(second.getNumber("nModified").intValue()).isEqualTo(1);
        assertThat(find("u", "{\"k\": \"new\"}")).singleElement().satisfies(d -> assertThat(d.getNumber("n").intValue()).isEqualTo(2));
        assertThat(c.distribution(owner, DB + ".u").getNumber("numOwnedDocuments").intValue()).isEqualTo(6);
    }

    /**
     * Writes under a collation on a collection sharded on a string field (MongoDB manual, "Collation": a string shard key
     * equality under a non-simple collation pins no shard): {@code [MinKey, "m")} on one shard, {@code ["m", MaxKey)} on
     * the other, so "ABC" (strength 2) equals "abc" on the first shard although the binary "ABC" is its key range too;
     * updateOne changes exactly that one document (the read-then-write path), deleteMany removes the variants on both
     * shards, and findAndModify's numericOrdering sort picks its document across the shards.
     */
    @Test
    void writesUnderACollationFindTheirDocumentsOnEveryShard() {
        c.ok("admin", "{\"shardCollection\": \"" + DB + ".s\", \"key\": {\"k\": 1}}");
        c.ok("admin", "{\"split\": \"" + DB + ".s\", \"middle\": {\"k\": \"m\"}}");
        String upper = c.chunks(DB + ".s").stream().filter(ch -> ch.getDocument("min").isString("k")).findFirst().orElseThrow()
                .getString("shard").getValue();
        c.ok("admin", "{\"moveChunk\": \"" + DB + ".s\", \"find\": {\"k\": \"z\"}, \"to\": \"" + MigrationCluster.other(upper) + "\"}");
        c.ok(DB, "{\"insert\": \"s\", \"documents\": [{\"_id\": 1, \"k\": \"abc\"}, {\"_id\": 2, \"k\": \"abd\"},"
                + " {\"_id\": 3, \"k\": \"xyz\"}, {\"_id\": 4, \"k\": \"XYZ\"}, {\"_id\": 5, \"k\": \"b\", \"n\": \"10\"},"
                + " {\"_id\": 6, \"k\": \"q\", \"n\": \"9\"}]}");
        String caseless = "\"collation\": {\"locale\": \"en\", \"strength\": 2}";

        BsonDocument binary = c.ok(DB, "{\"update\": \"s\", \"updates\": [{\"q\": {\"k\": \"ABC\"}, \"u\": {\"$set\": {\"hit\": 1}}}]}");
        assertThat(binary.getNumber("n").intValue()).isZero();
        BsonDocument updated = c.ok(DB, "{\"update\": \"s\", \"updates\": [{\"q\": {\"k\": \"ABC\"}, \"u\": {\"$set\": {\"hit\": 1}}, "
                + caseless + "}]}");
        assertThat(updated.getNumber("n").intValue()).isEqualTo(1);
        assertThat(find("s", "{\"hit\": 1}")).singleElement().satisfies(d -> assertThat(d.getString("k").getValue()).isEqualTo("abc"));

        BsonDocument deleted = c.ok(DB, "{\"delete\": \"s\", \"deletes\": [{\"q\": {\"k\": \"Xyz\"}, \"limit\": 0, " + caseless + "}]}");
        assertThat(deleted.getNumber("n").intValue()).as("'xyz' and 'XYZ', one on each shard").isEqualTo(2);
        assertThat(find("s", "{}")).extracting(d -> d.getInt32("_id").getValue()).containsExactlyInAnyOrder(1, 2, 5, 6);

        BsonDocument modified = c.ok(DB, "{\"findAndModify\": \"s\", \"query\": {\"n\": {\"$exists\": true}}, \"sort\": {\"n\": 1},"
                + " \"update\": {\"$set\": {\"first\": true}}, \"new\": true, \"collation\": {\"locale\": \"en\", \"numericOrdering\": true}}");
        assertThat(modified.getDocument("value").getInt32("_id").getValue()).as("'9' before '10' numerically, on the other shard").isEqualTo(6);
        BsonDocument removed = c.ok(DB, "{\"findAndModify\": \"s\", \"query\": {\"k\": \"ABD\"}, \"remove\": true, " + caseless + "}");
        assertThat(removed.getDocument("value").getInt32("_id").getValue()).isEqualTo(2);
        assertThat(find("s", "{}")).extracting(d -> d.getInt32("_id").getValue()).containsExactlyInAnyOrder(1, 5, 6);
    }

    private static List<BsonDocument> find(String filter) {
        return find("c", filter);
    }

    private static List<BsonDocument> find(String collection, String filter) {
        return RouterClient.requireOk("find", c.router.run(DB, ExtendedJson.parse("{\"find\": \"" + collection + "\", \"filter\": " + filter + "}")))
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }
}
