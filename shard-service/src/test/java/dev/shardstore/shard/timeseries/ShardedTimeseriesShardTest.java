package dev.shardstore.shard.timeseries;

import static dev.shardstore.shard.TestRouting.chunk;
import static dev.shardstore.shard.TestRouting.collection;
import static dev.shardstore.shard.TestRouting.version;
import static dev.shardstore.shard.TestRouting.versioned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CriticalSection;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The shard's half of sharded time-series collections against its real PostgreSQL (mongo/src/mongo/db/s/README_timeseries.md):
 * {@code _shardsvrPrepareShardCollection} on a time-series namespace (each row of the key translation table, the
 * refused keys, creating the collection or using an existing one's options), and versioned reads and inserts on a
 * time-series collection whose buckets collection is sharded: checked and filtered as the buckets collection, so
 * orphan buckets are invisible and never receive measurements.
 */
class ShardedTimeseriesShardTest extends ShardIntegrationTest {
    private static final String DB = "tsshard";
    private static final String OPTIONS = "timeseries: {timeField: 't', metaField: 'm'}";

    @Autowired
    private CollectionShardingRuntime runtime;

    /** A prepare leaves its critical section for the config service's refresh, which never comes here: exit them. */
    @AfterEach
    void exitPreparedSections() {
        for (CriticalSection section : runtime.criticalSections()) {
            if (section.namespace().startsWith(DB + ".")) {
                runtime.exitCriticalSection(Namespace.parse(section.namespace()), section.reason());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {t: 1}                 | {'control.min.t': 1, 'control.max.t': 1}                    | t_1
            {m: 1, t: 1}           | {meta: 1, 'control.min.t': 1, 'control.max.t': 1}           | m_1_t_1
            {m: 'hashed'}          | {meta: 'hashed'}                                            | m_hashed
            {m: 'hashed', t: 1}    | {meta: 'hashed', 'control.min.t': 1, 'control.max.t': 1}    | m_hashed_t_1
            {'m.a': 1}             | {'meta.a': 1}                                               | m.a_1
            """)
    void prepareCreatesTheCollectionAndTheReferenceIndexOfTheTranslatedKey(String viewKey, String index, String name) {
        String coll = "k" + name.replace('.', '_');
        BsonDocument reply = run(DB, "{_shardsvrPrepareShardCollection: '" + coll + "', key: " + viewKey + ", " + OPTIONS + "}");

        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
        assertThat(reply.getDocument("timeseriesFields")).isEqualTo(ExtendedJson.parse(
                "{timeField: 't', metaField: 'm', granularity: 'seconds', bucketMaxSpanSeconds: 3600}"));
        assertThat(reply.getBoolean("empty").getValue()).isTrue();
        assertThat(indexes("system.buckets." + coll)).extracting(i -> i.getDocument("key"))
                .as("the index create makes, and the one backing the key").contains(ExtendedJson.parse(index),
                        ExtendedJson.parse("{meta: 1, 'control.min.t': 1, 'control.max.t': 1}"));
        assertThat(indexes("system.buckets." + coll)).filteredOn(i -> i.getDocument("key").equals(ExtendedJson.parse(index)))
                .extracting(i -> i.getString("name").getValue()).containsExactly(name);
        assertThat(collectionType(coll)).isEqualTo("timeseries");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            key: {x: 1}                      | 72 | key.x
            key: {t: 1, m: 1}                | 72 | key.t
            key: {t: 'hashed'}               | 72 | key.t
            key: {mx: 1}                     | 72 | key.mx
            key: {m: 1}, unique: true        | 72 | unique
            key: {t: -1}                     | 2  | 't'
            """)
    void prepareRefusesWhatTheReferenceRefusesNamingTheField(String args, int code, String field) {
        BsonDocument reply = run(DB, "{_shardsvrPrepareShardCollection: 'refused', " + args + ", " + OPTIONS + "}");

        assertThat(reply.getNumber("code").intValue()).as(reply.toJson()).isEqualTo(code);
        assertThat(reply.getString("errmsg").getValue()).contains(field);
        assertThat(collectionType("refused")).as("nothing is created").isNull();
    }

    @Test
    void prepareOnAnExistingTimeseriesCollectionUsesItsOptionsAndRefusesOthers() {
        assertOk(run(DB, "{create: 'existing', timeseries: {timeField: 't', metaField: 'm', granularity: 'hours'}}"));

        BsonDocument differing = run(DB, "{_shardsvrPrepareShardCollection: 'existing', key: {m: 1}, " + OPTIONS + "}");
        BsonDocument prepared = run(DB, "{_shardsvrPrepareShardCollection: 'existing', key: {m: 1}}");

        assertThat(differing.getNumber("code").intValue()).as(differing.toJson()).isEqualTo(72);
        assertThat(differing.getString("errmsg").getValue()).contains("timeseries");
        assertThat(prepared.getDocument("timeseriesFields").getString("granularity").getValue()).as(prepared.toJson()).isEqualTo("hours");
    }

    @Test
    void versionedReadsAndInsertsSeeOnlyTheBucketsThisShardOwns() {
        ShardedCollection buckets = shardedBelowMWithAnOrphan("owned");
        ChunkVersion v = version(buckets, 1, 0);

        assertOk(run(DB, versioned("{insert: 'owned', documents: [{t: {$date: '2024-01-01T00:00:01Z'}, m: 'A', v: 1},"
                + " {t: {$date: '2024-01-01T00:00:02Z'}, m: 'A', v: 2}]}", v)));
        BsonDocument notOwned = run(DB, versioned("{insert: 'owned', documents: [{t: {$date: '2024-01-01T00:00:03Z'}, m: 'Z', v: 3}]}", v));
        List<BsonDocument> seen = batch(run(DB, versioned("{find: 'owned', sort: {v: 1}}", v)));
        List<BsonDocument> grouped = batch(run(DB, versioned("{aggregate: 'owned', pipeline: [{$group: {_id: '$m', n: {$sum: 1}}}],"
                + " cursor: {}}", v)));

        assertThat(notOwned.toJson()).as("a new bucket of another shard's chunk is StaleConfig").contains("StaleConfig");
        assertThat(seen).extracting(m -> m.getNumber("v").intValue()).containsExactly(1, 2);
        assertThat(grouped).containsExactly(ExtendedJson.parse("{_id: 'A', n: 2}"));
        assertThat(batch(run(DB, "{find: 'owned'}"))).as("unversioned: the orphan too").hasSize(3);

        // A's chunk moves away: the open bucket of A is now an orphan here and must not receive the measurement
        ConfigServerStub.instance().putRoutingTable(buckets, List.of(
                chunk(buckets, "{meta: {$minKey: 1}}", "{meta: 'B'}", "other", 2, 0),
                chunk(buckets, "{meta: 'B'}", "{meta: 'M'}", SHARD_NAME, 2, 1),
                chunk(buckets, "{meta: 'M'}", "{meta: {$maxKey: 1}}", "other", 1, 1)));
        BsonDocument afterMove = run(DB, versioned("{insert: 'owned', documents: [{t: {$date: '2024-01-01T00:00:04Z'}, m: 'A', v: 4}]}",
                version(buckets, 2, 1)));
        assertThat(afterMove.toJson()).contains("StaleConfig");
        assertThat(batch(run(DB, "{find: 'owned'}"))).extracting(m -> m.getNumber("v").intValue()).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void versionedUpdatesAndDeletesLeaveOrphanBucketsAloneAndKeepMeasurementsOnTheShard() {
        ShardedCollection buckets = shardedBelowMWithAnOrphan("writes");
        ChunkVersion v = version(buckets, 1, 0);
        assertOk(run(DB, versioned("{insert: 'writes', documents: [{t: {$date: '2024-01-01T00:00:01Z'}, m: 'A', v: 1},"
                + " {t: {$date: '2024-01-01T00:00:02Z'}, m: 'B', v: 2}]}", v)));

        BsonDocument updated = run(DB, versioned("{update: 'writes', updates: [{q: {}, u: {$inc: {v: 10}}, multi: true}]}", v));
        assertThat(updated.getNumber("n").intValue()).as(updated.toJson()).isEqualTo(2);
        BsonDocument moved = run(DB, versioned("{update: 'writes', updates: [{q: {m: 'A'}, u: {$set: {m: 'Y'}}}]}", v));
        assertThat(moved.getArray("writeErrors").get(0).asDocument().getNumber("code").intValue()).as("WouldChangeOwningShard: " + moved.toJson())
                .isEqualTo(283);
        BsonDocument deleted = run(DB, versioned("{delete: 'writes', deletes: [{q: {v: {$gte: 0}}, limit: 0}]}", v));
        assertThat(deleted.getNumber("n").intValue()).as(deleted.toJson()).isEqualTo(2);

        assertThat(batch(run(DB, "{find: 'writes'}"))).as("only the orphan is left, untouched")
                .extracting(m -> m.getNumber("v").intValue()).containsExactly(0);
    }

    /**
     * The time-series collection {@code coll}, its buckets sharded on {@code {meta: 1}} with the metas below 'M' on this
     * shard (version 1|0) and the others on "other", holding one orphan bucket of meta Z ({@code v: 0}), as a migration
     * or an unversioned write leaves one.
     */
    private ShardedCollection shardedBelowMWithAnOrphan(String coll) {
        assertOk(run(DB, "{create: '" + coll + "', " + OPTIONS + "}"));
        ShardedCollection buckets = collection(DB + ".system.buckets." + coll, "{meta: 1}");
        ConfigServerStub.instance().putRoutingTable(buckets, List.of(
                chunk(buckets, "{meta: {$minKey: 1}}", "{meta: 'M'}", SHARD_NAME, 1, 0),
                chunk(buckets, "{meta: 'M'}", "{meta: {$maxKey: 1}}", "other", 1, 1)));
        assertOk(run(DB, "{insert: '" + coll + "', documents: [{t: {$date: '2024-01-01T00:00:00Z'}, m: 'Z', v: 0}]}"));
        return buckets;
    }

    private List<BsonDocument> batch(BsonDocument reply) {
        assertOk(reply);
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private List<BsonDocument> indexes(String coll) {
        return batch(run(DB, "{listIndexes: '" + coll + "'}"));
    }

    private String collectionType(String coll) {
        return batch(run(DB, "{listCollections: 1, filter: {name: '" + coll + "'}}")).stream()
                .map(c -> c.getString("type").getValue()).findFirst().orElse(null);
    }

    private static void assertOk(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
    }
}
