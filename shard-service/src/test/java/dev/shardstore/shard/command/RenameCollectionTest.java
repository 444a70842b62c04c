package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.shard.ShardIntegrationTest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/** {@code _shardsvrRenameCollection} (the end of {@code $out}) against real PostgreSQL. */
class RenameCollectionTest extends ShardIntegrationTest {

    @Test
    void replacesTheTargetWithItsIndexesAndRecordsOneOplogEntry() {
        insert("ren1", "target", 0, 5);
        run("ren1", "{createIndexes: 'target', indexes: [{key: {old: 1}, name: 'old_1'}]}");
        insert("ren1", "tmp.agg_out.x", 100, 3);
        run("ren1", "{createIndexes: 'tmp.agg_out.x', indexes: [{key: {n: 1}, name: 'n_1', unique: true}]}");

        assertThat(run("ren1", "{_shardsvrRenameCollection: 'tmp.agg_out.x', to: 'target', dropTarget: true}")).isEqualTo(ok());

        assertThat(ids("ren1", "target")).containsExactly(100, 101, 102);
        assertThat(run("ren1", "{listIndexes: 'target'}").getDocument("cursor").getArray("firstBatch"))
                .extracting(v -> v.asDocument().getString("name").getValue()).containsExactly("_id_", "n_1");
        assertThat(run("ren1", "{listCollections: 1, nameOnly: true}").getDocument("cursor").getArray("firstBatch"))
                .extracting(v -> v.asDocument().getString("name").getValue()).containsExactly("target");
        assertError(run("ren1", "{insert: 'target', documents: [{_id: 7, n: 100}]}").getArray("writeErrors").get(0).asDocument(), 11000);
        assertThat(jdbc.sql("SELECT count(*) FROM oplog WHERE ns = 'ren1.$cmd' AND op = 'c' AND position('renameCollection' in encode(o, 'escape')) > 0")
                .query(Long.class).single()).isEqualTo(1);
    }

    @Test
    void renamesOntoANameThatDoesNotExistYet() {
        insert("ren4", "tmp.agg_out.y", 0, 4);
        assertThat(run("ren4", "{_shardsvrRenameCollection: 'tmp.agg_out.y', to: 'fresh', dropTarget: true}")).isEqualTo(ok());
        assertThat(ids("ren4", "fresh")).containsExactly(0, 1, 2, 3);
        assertThat(run("ren4", "{count: 'fresh'}").getNumber("n").intValue()).isEqualTo(4);
        assertThat(ids("ren4", "tmp.agg_out.y")).isEmpty();
    }

    @Test
    void refusesAMissingSourceAndARenameWithoutDropTarget() {
        insert("ren2", "target", 0, 2);
        assertError(run("ren2", "{_shardsvrRenameCollection: 'nothere', to: 'target', dropTarget: true}"), 26);
        assertError(run("ren2", "{_shardsvrRenameCollection: 'target', to: 'other'}"), 20);
        assertThat(ids("ren2", "target")).containsExactly(0, 1);
    }

    /** A reader counting the target while it is replaced over and over sees the old count or the new, never another. */
    @Test
    void aConcurrentReaderSeesTheOldOrTheNewContentsNeverAMix() throws Exception {
        insert("ren3", "target", 0, 30);
        AtomicBoolean done = new AtomicBoolean();
        ConcurrentLinkedQueue<Integer> seen = new ConcurrentLinkedQueue<>();
        Thread reader = new Thread(() -> {
            while (!done.get()) {
                seen.add(ids("ren3", "target").size());
            }
        });
        reader.start();
        try {
            for (int round = 0; round < 8; round++) {
                insert("ren3", "tmp.agg_out.r" + round, 0, round % 2 == 0 ? 50 : 30);
                assertThat(run("ren3", "{_shardsvrRenameCollection: 'tmp.agg_out.r" + round + "', to: 'target', dropTarget: true}"))
                        .isEqualTo(ok());
            }
        } finally {
            done.set(true);
            reader.join();
        }
        assertThat(seen).isNotEmpty().allMatch(n -> n == 30 || n == 50);
        assertThat(ids("ren3", "target")).hasSize(30);
    }

    private static BsonDocument ok() {
        return new BsonDocument("ok", new BsonDouble(1));
    }

    private static void assertError(BsonDocument reply, int code) {
        assertThat(reply.getNumber("code").intValue()).as(reply.toJson()).isEqualTo(code);
    }

    private void insert(String db, String collection, int from, int count) {
        BsonArray docs = new BsonArray();
        for (int i = from; i < from + count; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i)).append("n", new BsonInt32(i)));
        }
        run(db, new BsonDocument("insert", new BsonString(collection)).append("documents", docs));
    }

    /** The {@code _id}s of a full read of the collection (one batch). */
    private List<Integer> ids(String db, String collection) {
        BsonDocument reply = run(db, new BsonDocument("find", new BsonString(collection)).append("batchSize", new BsonInt32(1000)));
        List<Integer> ids = new ArrayList<>();
        for (BsonValue v : reply.getDocument("cursor").getArray("firstBatch")) {
            ids.add(v.asDocument().getInt32("_id").getValue());
        }
        return ids;
    }
}
