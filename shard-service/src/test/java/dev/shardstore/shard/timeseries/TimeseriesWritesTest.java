package dev.shardstore.shard.timeseries;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/**
 * Updates and deletes of measurements of an unsharded time-series collection on one shard against its real
 * PostgreSQL: buckets unpacked, changed and repacked with exact control fields, emptied buckets removed, single vs
 * multi statements, meta and time updates moving a measurement to a new bucket, upserts, and the refused options.
 */
class TimeseriesWritesTest extends ShardIntegrationTest {
    private static final String DB = "tswrites";
    private static final long MINUTE = 60_000;

    @Test
    void deleteByMetaAndTimeRepacksBucketsExactlyAndRemovesEmptiedOnes() {
        create("del");
        insert("del", List.of(m(0, "a", 1), m(MINUTE, "a", 2), m(2 * MINUTE, "a", 3), m(0, "b", 4), m(MINUTE, "b", 5)));

        BsonDocument reply = run(DB, "{delete: 'del', deletes: [{q: {t: {$gte: {$date: 120000}}}, limit: 0}]}");
        assertThat(reply.getInt32("n").getValue()).as(reply.toJson()).isEqualTo(1);
        BsonDocument a = bucketOf("del", "a");
        assertThat(a.getDocument("control")).isEqualTo(ExtendedJson.parse(
                "{version: 1, min: {t: {$date: 0}, _id: 'a-1', v: 1}, max: {_id: 'a-2', t: {$date: 60000}, v: 2}}"));
        assertThat(a.getDocument("data").getDocument("v")).isEqualTo(ExtendedJson.parse("{'0': 1, '1': 2}"));

        reply = run(DB, "{delete: 'del', deletes: [{q: {'m.id': 'b'}, limit: 0}]}");
        assertThat(reply.getInt32("n").getValue()).isEqualTo(2);
        assertThat(documentsOf(DB, "system.buckets.del")).hasSize(1);
        assertThat(values("del")).containsExactlyInAnyOrder(1, 2);
    }

    @Test
    void limitOneDeletesExactlyOneMeasurement() {
        create("one");
        insert("one", List.of(m(0, "a", 1), m(MINUTE, "a", 2), m(0, "b", 3)));
        BsonDocument reply = run(DB, "{delete: 'one', deletes: [{q: {v: {$gte: 1}}, limit: 1}]}");
        assertThat(reply.getInt32("n").getValue()).as(reply.toJson()).isEqualTo(1);
        assertThat(values("one")).hasSize(2);
    }

    @Test
    void multiAndSingleUpdatesChangeMeasurementsInPlace() {
        create("upd");
        insert("upd", List.of(m(0, "a", 1), m(MINUTE, "a", 2), m(2 * MINUTE, "a", 3)));

        BsonDocument reply = run(DB, "{update: 'upd', updates: [{q: {'m.id': 'a'}, u: {$inc: {v: 10}}, multi: true}]}");
        assertThat(reply.getInt32("n").getValue()).as(reply.toJson()).isEqualTo(3);
        assertThat(reply.getInt32("nModified").getValue()).isEqualTo(3);
        assertThat(values("upd")).containsExactlyInAnyOrder(11, 12, 13);
        assertThat(bucketOf("upd", "a").getDocument("control").getDocument("min").getInt32("v").getValue()).isEqualTo(11);
        assertThat(bucketOf("upd", "a").getDocument("control").getDocument("max").getInt32("v").getValue()).isEqualTo(13);

        reply = run(DB, "{update: 'upd', updates: [{q: {v: {$gt: 11}}, u: {$set: {v: 100}}}]}");
        assertThat(reply.getInt32("n").getValue()).isEqualTo(1);
        assertThat(reply.getInt32("nModified").getValue()).isEqualTo(1);
        assertThat(values("upd")).hasSize(3).contains(100, 11);
        assertThat(bucketOf("upd", "a").getDocument("control").getDocument("max").getInt32("v").getValue()).isEqualTo(100);

        // a replacement keeps the _id; an update changing nothing counts as matched only
        reply = run(DB, "{update: 'upd', updates: [{q: {_id: 'a-1'}, u: {t: {$date: 0}, m: {id: 'a'}, w: 7}},"
                + " {q: {w: 7}, u: {$set: {w: 7}}}]}");
        assertThat(reply.getInt32("n").getValue()).as(reply.toJson()).isEqualTo(2);
        assertThat(reply.getInt32("nModified").getValue()).isEqualTo(1);
        assertThat(documentsOf(DB, "upd")).contains(ExtendedJson.parse("{_id: 'a-1', t: {$date: 0}, m: {id: 'a'}, w: 7}"));
        assertThat(documentsOf(DB, "system.buckets.upd")).hasSize(1);
    }

    @Test
    void updatingMetaOrTimeMovesTheMeasurementToANewBucket() {
        create("move");
        insert("move", List.of(m(0, "a", 1), m(MINUTE, "a", 2)));

        BsonDocument reply = run(DB, "{update: 'move', updates: [{q: {v: 2}, u: {$set: {'m.id': 'c'}}}]}");
        assertThat(reply.getInt32("nModified").getValue()).as(reply.toJson()).isEqualTo(1);
        BsonDocument c = bucketOf("move", "c");
        assertThat(c.getDocument("control")).isEqualTo(ExtendedJson.parse(
                "{version: 1, min: {t: {$date: 60000}, _id: 'a-2', v: 2}, max: {_id: 'a-2', t: {$date: 60000}, v: 2}}"));
        assertThat(bucketOf("move", "a").getDocument("control").getDocument("max").getInt32("v").getValue()).isEqualTo(1);

        // moving the last measurement of a bucket by time far outside its span: the old bucket goes away
        reply = run(DB, "{update: 'move', updates: [{q: {v: 2}, u: {$set: {t: {$date: 36000000}}}}]}");
        assertThat(reply.getInt32("nModified").getValue()).as(reply.toJson()).isEqualTo(1);
        assertThat(documentsOf(DB, "system.buckets.move")).hasSize(2)
                .anySatisfy(b -> assertThat(b.getDocument("control").getDocument("min").getDateTime("t").getValue()).isEqualTo(36000000));
        assertThat(documentsOf(DB, "move")).hasSize(2)
                .contains(ExtendedJson.parse("{_id: 'a-2', t: {$date: 36000000}, m: {id: 'c'}, v: 2}"));
    }

    @Test
    void aMultiUpdateMovingMeasurementsChangesEachOnceEvenWhenTheScanMeetsTheirNewBuckets() {
        create("halloween");
        List<BsonDocument> all = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            all.add(m(i * 3_600_000L, "s" + (i % 20), i));
        }
        insert("halloween", all);
        BsonDocument reply = run(DB, "{update: 'halloween', updates: [{q: {}, u: {$set: {'m.id': 'z'}, $inc: {v: 1000}}, multi: true}]}");
        assertThat(reply.getInt32("n").getValue()).as(reply.toJson()).isEqualTo(40);
        assertThat(reply.getInt32("nModified").getValue()).isEqualTo(40);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            expected.add(1000 + i);
        }
        assertThat(values("halloween")).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(documentsOf(DB, "system.buckets.halloween"))
                .allSatisfy(b -> assertThat(b.getDocument("meta").getString("id").getValue()).isEqualTo("z"));
    }

    @Test
    void upsertInsertsAMeasurementWhenNothingMatches() {
        create("ups");
        BsonDocument reply = run(DB, "{update: 'ups', updates: [{q: {'m': {id: 'z'}, t: {$date: 5000}}, u: {$set: {v: 9}}, upsert: true}]}");
        assertThat(reply.getInt32("n").getValue()).as(reply.toJson()).isEqualTo(1);
        assertThat(reply.getArray("upserted")).hasSize(1);
        assertThat(documentsOf(DB, "ups")).singleElement().satisfies(d -> {
            assertThat(d.getInt32("v").getValue()).isEqualTo(9);
            assertThat(d.getDocument("m")).isEqualTo(ExtendedJson.parse("{id: 'z'}"));
        });
        reply = run(DB, "{update: 'ups', updates: [{q: {v: 1}, u: {$set: {w: 1}}, upsert: true}]}");
        assertThat(reply.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue()).as(reply.toJson()).isEqualTo(2);
    }

    @Test
    void hintAndSortAreRefusedNamingThem() {
        create("ref");
        BsonDocument reply = run(DB, "{delete: 'ref', deletes: [{q: {}, limit: 0, hint: {_id: 1}}]}");
        assertThat(reply.getArray("writeErrors").get(0).asDocument().getString("errmsg").getValue()).contains("hint");
        reply = run(DB, "{update: 'ref', updates: [{q: {}, u: {$set: {a: 1}}, sort: {t: 1}}]}");
        assertThat(reply.getArray("writeErrors").get(0).asDocument().getString("errmsg").getValue()).contains("updates.0.sort");
        reply = run(DB, "{findAndModify: 'ref', query: {}, remove: true}");
        assertThat(reply.getInt32("code").getValue()).as(reply.toJson()).isEqualTo(238);
    }

    private void create(String collection) {
        BsonDocument reply = run(DB, "{create: '" + collection + "', timeseries: {timeField: 't', metaField: 'm'}}");
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
    }

    private static BsonDocument m(long time, String sensor, int value) {
        return new BsonDocument("_id", new BsonString(sensor + "-" + value)).append("t", new BsonDateTime(time))
                .append("m", new BsonDocument("id", new BsonString(sensor))).append("v", new BsonInt32(value));
    }

    private void insert(String collection, List<BsonDocument> documents) {
        BsonDocument reply = run(DB, new BsonDocument("insert", new BsonString(collection)).append("documents", new BsonArray(documents)));
        assertThat(reply.getInt32("n").getValue()).as(reply.toJson()).isEqualTo(documents.size());
    }

    private BsonDocument bucketOf(String collection, String sensor) {
        return documentsOf(DB, "system.buckets." + collection).stream()
                .filter(b -> b.getDocument("meta").getString("id").getValue().equals(sensor)).findFirst().orElseThrow();
    }

    private List<Integer> values(String collection) {
        List<Integer> out = new ArrayList<>();
        documentsOf(DB, collection).forEach(d -> out.add(d.getInt32("v").getValue()));
        return out;
    }
}
