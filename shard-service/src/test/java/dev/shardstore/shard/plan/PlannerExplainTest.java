package dev.shardstore.shard.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The planner's choices as explain shows them, and the counts of what each plan read. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PlannerExplainTest extends ShardIntegrationTest {
    private static final String DB = "plan1";

    @BeforeAll
    void load() {
        BsonArray docs = new BsonArray();
        for (int i = 0; i < 50; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i))
                    .append("country", new BsonString(i % 5 == 0 ? "FR" : "DE"))
                    .append("n", new BsonInt32(i))
                    .append("tags", new BsonArray(List.of(new BsonString("t" + i % 3), new BsonString("all")))));
        }
        run(DB, new BsonDocument("insert", new BsonString("c")).append("documents", docs));
        run(DB, "{createIndexes: 'c', indexes: [{key: {country: 1}, name: 'country_1'}, {key: {n: 1}, name: 'n_1'},"
                + " {key: {tags: 1}, name: 'tags_1'}]}");
    }

    private BsonDocument explain(String inner) {
        BsonDocument reply = run(DB, "{explain: " + inner + ", verbosity: 'executionStats'}");
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
        return reply;
    }

    private static BsonDocument winning(BsonDocument explain) {
        return explain.getDocument("queryPlanner").getDocument("winningPlan");
    }

    private static long stat(BsonDocument explain, String name) {
        return explain.getDocument("executionStats").getNumber(name).longValue();
    }

    @Test
    void indexedEqualityIsAnIndexScan() {
        BsonDocument e = explain("{find: 'c', filter: {country: 'FR'}}");
        assertThat(e.getDocument("queryPlanner").getString("namespace").getValue()).isEqualTo("plan1.c");
        assertThat(e.getDocument("queryPlanner").getDocument("parsedQuery")).isEqualTo(ExtendedJson.parse("{country: 'FR'}"));
        assertThat(e.getDocument("queryPlanner").getArray("rejectedPlans")).isEmpty();
        BsonDocument fetch = winning(e);
        assertThat(fetch.getString("stage").getValue()).isEqualTo("FETCH");
        BsonDocument ixscan = fetch.getDocument("inputStage");
        assertThat(ixscan.getString("stage").getValue()).isEqualTo("IXSCAN");
        assertThat(ixscan.getString("indexName").getValue()).isEqualTo("country_1");
        assertThat(ixscan.getDocument("keyPattern")).isEqualTo(ExtendedJson.parse("{country: 1}"));
        assertThat(ixscan.getBoolean("isMultiKey").getValue()).isFalse();
        assertThat(ixscan.getString("direction").getValue()).isEqualTo("forward");
        assertThat(ixscan.getDocument("indexBounds")).isEqualTo(ExtendedJson.parse("{country: ['[\"FR\", \"FR\"]']}"));
        assertThat(stat(e, "nReturned")).isEqualTo(10);
        assertThat(stat(e, "totalKeysExamined")).isEqualTo(10);
        assertThat(stat(e, "totalDocsExamined")).isEqualTo(10);
    }

    @Test
    void indexedRangeIsAnIndexScan() {
        BsonDocument e = explain("{find: 'c', filter: {n: {$gte: 10, $lt: 20}}}");
        BsonDocument ixscan = winning(e).getDocument("inputStage");
        assertThat(ixscan.getString("indexName").getValue()).isEqualTo("n_1");
        assertThat(ixscan.getDocument("indexBounds")).isEqualTo(ExtendedJson.parse("{n: ['[10, 20)']}"));
        assertThat(stat(e, "nReturned")).isEqualTo(10);
        assertThat(stat(e, "totalKeysExamined")).isEqualTo(10);
        assertThat(ids(run(DB, "{find: 'c', filter: {n: {$gte: 10, $lt: 20}}}"))).containsExactly(10, 11, 12, 13, 14, 15, 16, 17, 18, 19);
        assertThat(run(DB, "{count: 'c', query: {n: {$gt: 45}}}").getNumber("n").intValue()).isEqualTo(4);
    }

    @Test
    void equalityPrefixBeatsARange() {
        BsonDocument e = explain("{find: 'c', filter: {n: {$gt: 3}, country: 'FR'}}");
        assertThat(winning(e).getDocument("inputStage").getString("indexName").getValue()).isEqualTo("country_1");
        assertThat(stat(e, "nReturned")).isEqualTo(9);
        assertThat(stat(e, "totalDocsExamined")).isEqualTo(10);
    }

    @Test
    void unindexedFilterIsACollectionScan() {
        BsonDocument e = explain("{find: 'c', filter: {name: 'x'}}");
        assertThat(winning(e)).isEqualTo(ExtendedJson.parse("{stage: 'COLLSCAN', filter: {name: 'x'}, direction: 'forward'}"));
        assertThat(stat(e, "nReturned")).isZero();
        assertThat(stat(e, "totalKeysExamined")).isZero();
        assertThat(stat(e, "totalDocsExamined")).isEqualTo(50);
    }

    @Test
    void naturalHintForcesACollectionScan() {
        BsonDocument e = explain("{find: 'c', filter: {country: 'FR'}, hint: {$natural: 1}}");
        assertThat(winning(e).getString("stage").getValue()).isEqualTo("COLLSCAN");
        assertThat(stat(e, "nReturned")).isEqualTo(10);
        assertThat(stat(e, "totalDocsExamined")).isEqualTo(50);
        assertThat(ids(run(DB, "{find: 'c', filter: {country: 'FR'}, hint: {$natural: 1}}")))
                .containsExactlyElementsOf(ids(run(DB, "{find: 'c', filter: {country: 'FR'}}")));
        assertThat(run(DB, "{count: 'c', query: {country: 'FR'}, hint: {$natural: 1}}").getNumber("n").intValue()).isEqualTo(10);
        BsonDocument hinted = explain("{find: 'c', filter: {country: 'FR'}, hint: 'n_1'}");
        assertThat(winning(hinted).getDocument("inputStage").getDocument("indexBounds")).isEqualTo(ExtendedJson.parse("{n: ['[MinKey, MaxKey]']}"));
        assertThat(stat(hinted, "totalKeysExamined")).isEqualTo(50);
        assertThat(stat(hinted, "nReturned")).isEqualTo(10);
    }

    @Test
    void multikeyScanReturnsEachDocumentOnce() {
        BsonDocument e = explain("{find: 'c', filter: {tags: {$in: ['t1', 'all']}}}");
        BsonDocument ixscan = winning(e).getDocument("inputStage");
        assertThat(ixscan.getString("indexName").getValue()).isEqualTo("tags_1");
        assertThat(ixscan.getBoolean("isMultiKey").getValue()).isTrue();
        assertThat(stat(e, "nReturned")).isEqualTo(50);
        assertThat(stat(e, "totalKeysExamined")).isEqualTo(67);
        assertThat(stat(e, "totalDocsExamined")).isEqualTo(50);
        assertThat(run(DB, "{count: 'c', query: {tags: 't1'}}").getNumber("n").intValue()).isEqualTo(17);
    }

    @Test
    void idEqualityCountAndWritesExplain() {
        assertThat(winning(explain("{find: 'c', filter: {_id: 3}}")).getString("stage").getValue()).isEqualTo("IDHACK");
        BsonDocument count = explain("{count: 'c', query: {country: 'DE'}}");
        assertThat(winning(count).getDocument("inputStage").getString("indexName").getValue()).isEqualTo("country_1");
        assertThat(stat(count, "nReturned")).isEqualTo(40);
        BsonDocument delete = run(DB, "{explain: {delete: 'c', deletes: [{q: {n: 7}, limit: 1}]}, verbosity: 'queryPlanner'}");
        assertThat(delete.containsKey("executionStats")).isFalse();
        assertThat(winning(delete).getString("stage").getValue()).isIn("FETCH", "COLLSCAN");
        BsonDocument missing = explain("{find: 'nothere', filter: {a: 1}}");
        assertThat(winning(missing).getString("stage").getValue()).isEqualTo("EOF");
        assertThat(run(DB, "{count: 'c'}").getNumber("n").intValue()).isEqualTo(50);
    }

    @Test
    void anIdRangeReadsOnlyItsRowsOfTheIdIndex() {
        BsonDocument e = explain("{find: 'c', filter: {_id: {$gte: 40}}}");
        BsonDocument ixscan = winning(e).getDocument("inputStage");
        assertThat(ixscan.getString("indexName").getValue()).isEqualTo("_id_");
        assertThat(ixscan.getDocument("keyPattern")).isEqualTo(ExtendedJson.parse("{_id: 1}"));
        assertThat(ixscan.getBoolean("isUnique").getValue()).isTrue();
        assertThat(stat(e, "nReturned")).isEqualTo(10);
        assertThat(stat(e, "totalDocsExamined")).as("a collection scan reads all 50").isEqualTo(10);
        assertThat(ids(run(DB, "{find: 'c', filter: {_id: {$gt: 45}}}"))).containsExactly(46, 47, 48, 49);
        assertThat(ids(run(DB, "{find: 'c', filter: {_id: {$in: [3, 1, 48]}}}"))).containsExactly(1, 3, 48);
        assertThat(ids(run(DB, "{find: 'c', filter: {_id: {$gte: 10, $lt: 13}, country: 'DE'}}"))).containsExactly(11, 12);
        assertThat(ids(run(DB, "{find: 'c', filter: {_id: {$lt: 20}, n: {$gte: 18}}, hint: '_id_'}"))).containsExactly(18, 19);
        assertThat(run(DB, "{count: 'c', query: {_id: {$gte: 45}}}").getNumber("n").intValue()).isEqualTo(5);
        // an equality on an indexed field ranks above an _id range
        BsonDocument both = explain("{find: 'c', filter: {_id: {$gte: 0}, country: 'FR'}}");
        assertThat(winning(both).getDocument("inputStage").getString("indexName").getValue()).isEqualTo("country_1");
        assertThat(stat(both, "nReturned")).isEqualTo(10);
    }

    @Test
    void onlyARangeOnIdAloneWithinOneBracketHasExactBounds() {
        Filter simple = Filter.parse(new BsonDocument());
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {$gte: 'user5'}}"), simple)).isTrue();
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {$gt: 'a', $lte: 'm'}}"), simple)).isTrue();
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {$gte: 5}}"), simple)).as("a number").isTrue();
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {$gt: 1.5, $lt: {$numberLong: '9'}}}"), simple)).as("numbers of two types")
                .isTrue();
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {$lt: {$date: '2026-01-01T00:00:00Z'}}}"), simple)).as("a date").isTrue();
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {$gte: {$numberDouble: 'NaN'}}}"), simple)).as("NaN").isFalse();
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {$lt: {$numberDecimal: 'NaN'}}}"), simple)).as("decimal NaN").isFalse();
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {$gte: 'a', $lt: 5}}"), simple)).as("two brackets").isFalse();
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {$gte: true}}"), simple)).as("a boolean").isFalse();
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {$gte: 'a', $ne: 'b'}}"), simple)).as("$ne").isFalse();
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {$gte: 'a'}, x: 1}"), simple)).as("another field").isFalse();
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: 'a'}"), simple)).as("an equality: IDHACK").isFalse();
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {}}"), simple)).isFalse();
        Filter caseless = Filter.parse(new BsonDocument(), CommandVariables.withoutLet(),
                Collation.parse("collation", ExtendedJson.parse("{locale: 'en', strength: 2}")));
        assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: {$gte: 'a'}}"), caseless)).as("a collation").isFalse();
    }

    @Test
    void aNumberOrDateRangeOnIdReturnsWhatTheFilterMatchesAmongIdsOfEveryType() {
        // one NaN: every NaN is the same _id
        BsonDocument inserted = run("plan4", "{insert: 'm', documents: [{_id: 1}, {_id: {$numberLong: '2'}}, {_id: 2.5}, {_id: {$numberDecimal: '3.00'}},"
                + " {_id: {$numberDecimal: 'NaN'}}, {_id: {$numberDouble: '-Infinity'}},"
                + " {_id: {$numberDouble: 'Infinity'}}, {_id: {$numberDouble: '-0.0'}}, {_id: {$numberLong: '9007199254740993'}},"
                + " {_id: 9007199254740992.0}, {_id: {$numberDecimal: '1E+6000'}}, {_id: {$numberDecimal: '-1E+6000'}},"
                + " {_id: {$date: '1970-01-01T00:00:00Z'}}, {_id: {$date: '1970-01-01T00:00:01Z'}}, {_id: {$date: '1969-12-31T23:59:59Z'}},"
                + " {_id: 'five'}, {_id: null}, {_id: true}, {_id: {$minKey: 1}}, {_id: {$maxKey: 1}},"
                + " {_id: {$timestamp: {t: 1, i: 1}}}, {_id: {$oid: '0123456789abcdef01234567'}}, {_id: {n: 2}}]}");
        assertThat(inserted.getNumber("n").intValue()).as(inserted.toJson()).isEqualTo(23);
        for (String range : List.of("{$gt: 2}", "{$gte: 2}", "{$lt: 2.5}", "{$lte: {$numberDecimal: '3'}}", "{$gt: {$numberDouble: '-Infinity'}}",
                "{$lt: {$numberDouble: 'Infinity'}}", "{$gte: 0, $lt: {$numberLong: '9007199254740993'}}", "{$gt: 9007199254740992.0}",
                "{$lte: {$numberDouble: '-0.0'}}", "{$gte: {$numberDouble: '-Infinity'}}", "{$gte: {$date: '1970-01-01T00:00:00Z'}}",
                "{$lt: {$date: '1970-01-01T00:00:01Z'}}")) {
            assertThat(QueryPlanner.exactOnId(ExtendedJson.parse("{_id: " + range + "}"), Filter.parse(new BsonDocument()))).as(range).isTrue();
            assertThat(sameAsCollectionScan("plan4", "{_id: " + range + "}", null)).as(range).isNotEmpty();
        }
        assertThat(idsOf(run("plan4", "{find: 'm', filter: {_id: {$gte: 0, $lt: 3}}}"))).as("NaN is not a number in a range")
                .containsExactly(new BsonDouble(-0.0), new BsonInt32(1), new BsonInt64(2), new BsonDouble(2.5));
        BsonDocument exact = winning(explain0("plan4", "{find: 'm', filter: {_id: {$gt: 2}}}"));
        assertThat(exact.containsKey("filter")).as(exact.toJson()).isFalse();
        BsonDocument nan = winning(explain0("plan4", "{find: 'm', filter: {_id: {$gte: {$numberDouble: 'NaN'}}}}"));
        assertThat(nan.containsKey("filter")).as(nan.toJson()).isTrue();
    }

    @Test
    void aStringRangeOnIdReturnsWhatTheFilterMatchesAmongIdsOfEveryType() {
        run("plan2", "{insert: 'm', documents: [{_id: 'apple'}, {_id: 'banana'}, {_id: 'cherry'}, {_id: 'b'}, {_id: ''},"
                + " {_id: 7}, {_id: 'bz'}, {_id: {$symbol: 'bsym'}}, {_id: {k: 'c'}}, {_id: {$oid: '0123456789abcdef01234567'}},"
                + " {_id: true}, {_id: null}, {_id: {$minKey: 1}}, {_id: {$maxKey: 1}}, {_id: 'c'}]}");
        for (String range : List.of("{$gte: 'b'}", "{$gt: 'b'}", "{$lt: 'c'}", "{$lte: 'c'}", "{$gt: 'b', $lt: 'c'}", "{$gte: ''}")) {
            assertThat(sameAsCollectionScan("plan2", "{_id: " + range + "}", null)).as(range).isNotEmpty()
                    .allMatch(id -> id.isString() || id.isSymbol());
        }
        assertThat(idsOf(run("plan2", "{find: 'm', filter: {_id: {$gt: 'b', $lt: 'c'}}}"))).containsExactly(
                new BsonString("banana"), new BsonSymbol("bsym"), new BsonString("bz"));
        BsonDocument e = explain0("plan2", "{find: 'm', filter: {_id: {$gte: 'b'}}}");
        assertThat(stat(e, "nReturned")).isEqualTo(stat(e, "totalDocsExamined"));
        // the bounds answer the filter, so FETCH applies none (MongoDB's explain omits it too); a non-exact range keeps it
        assertThat(winning(e).getString("stage").getValue()).isEqualTo("FETCH");
        assertThat(winning(e).containsKey("filter")).as(winning(e).toJson()).isFalse();
        assertThat(winning(e).getDocument("inputStage").getString("indexName").getValue()).isEqualTo("_id_");
        BsonDocument inexact = winning(explain0("plan2", "{find: 'm', filter: {_id: {$gte: 'b', $ne: 'bz'}}}"));
        assertThat(inexact.containsKey("filter")).as(inexact.toJson()).isTrue();
    }

    @Test
    void aRangeOnOneIndexedFieldIsExactAndReturnsWhatTheFilterMatches() {
        // values of every type, arrays (multikey entries, one document reached twice), nested paths and missing fields
        run("plan5", "{insert: 'm', documents: [{_id: 1, v: 5}, {_id: 2, v: 'five'}, {_id: 3, v: [1, 10]}, {_id: 4, v: [6, 7]},"
                + " {_id: 5, v: {$numberDouble: 'NaN'}}, {_id: 6, v: null}, {_id: 7}, {_id: 8, v: {$date: '1970-01-01T00:00:01Z'}},"
                + " {_id: 9, v: [[6]]}, {_id: 10, v: {$numberDecimal: '6.5'}}, {_id: 11, v: ['f', 'z']}, {_id: 12, v: true},"
                + " {_id: 13, n: {w: 6}}, {_id: 14, n: [{w: 2}, {w: 9}]}, {_id: 15, n: {w: [6, 'x']}}, {_id: 16, p: [9, 1]}]}");
        run("plan5", "{createIndexes: 'm', indexes: [{key: {v: 1}, name: 'v_1'}, {key: {'n.w': -1}, name: 'nw'}, {key: {'p.0': 1}, name: 'p0'},"
                + " {key: {c: 1}, name: 'c_ci', collation: {locale: 'en', strength: 2}}, {key: {h: 'hashed'}, name: 'h'},"
                + " {key: {v: 1, n: 1}, name: 'vn'}]}");
        for (String filter : List.of("{v: {$gt: 5}}", "{v: {$gte: 6}}", "{v: {$lte: 6.5}}", "{v: {$gt: 'e'}}", "{v: {$lt: 'g'}}",
                "{v: {$gte: {$date: '1970-01-01T00:00:00Z'}}}", "{v: {$gt: {$numberDouble: '-Infinity'}}}", "{'n.w': {$gt: 5}}",
                "{'n.w': {$gte: 'a'}}", "{'n.w': {$lt: 3}}")) {
            String index = filter.contains("n.w") ? "nw" : "v_1";
            BsonDocument winning = winning(explain0("plan5", "{find: 'm', filter: " + filter + ", hint: '" + index + "'}"));
            assertThat(winning.containsKey("filter")).as(filter + ": exact, " + winning.toJson()).isFalse();
            assertThat(sameAsCollectionScan("plan5", filter, null)).as(filter).isNotEmpty();
            assertThat(sameAsCollectionScan("plan5", filter, index)).as(filter + " over " + index).isNotEmpty();
        }
        // not exact: two comparisons on a multikey index (its bounds hold one), a positional path, a collation, a hashed or
        // compound index, NaN, two brackets, another operator
        for (String[] inexact : new String[][] {{"{'n.w': {$gt: 1, $lt: 3}}", "nw"}, {"{v: {$gte: 5, $lt: 7}}", "v_1"},
                {"{'p.0': {$gt: 5}}", "p0"}, {"{c: {$gt: 'a'}}", "c_ci"}, {"{h: {$gt: 1}}", "h"},
                {"{v: {$gt: 1}}", "vn"}, {"{v: {$gte: {$numberDouble: 'NaN'}}}", "v_1"}, {"{v: {$gt: 1, $lt: 'z'}}", "v_1"},
                {"{v: {$gt: 1, $ne: 6}}", "v_1"}}) {
            BsonDocument winning = winning(explain0("plan5", "{find: 'm', filter: " + inexact[0] + ", hint: '" + inexact[1] + "'}"));
            assertThat(winning.containsKey("filter")).as(inexact[0] + " over " + inexact[1] + ": " + winning.toJson()).isTrue();
        }
        for (String[] checked : new String[][] {{"{'p.0': {$gt: 5}}", "p0"}, {"{'n.w': {$gt: 1, $lt: 3}}", "nw"}, {"{v: {$gte: 5, $lt: 7}}", "v_1"}}) {
            sameAsCollectionScan("plan5", checked[0], checked[1]);
        }
    }

    /**
     * Asserts that a find of {@code filter} on {@code db.m}, hinted to the index named {@code hint} (null: the planner's
     * choice), returns what a collection scan with the filter returns, each document once; returns their ids.
     */
    private List<BsonValue> sameAsCollectionScan(String db, String filter, @Nullable String hint) {
        String hinted = hint == null ? "" : ", hint: '" + hint + "'";
        List<BsonValue> planned = idsOf(run(db, "{find: 'm', filter: " + filter + hinted + "}"));
        List<BsonValue> scanned = idsOf(run(db, "{find: 'm', filter: " + filter + ", hint: {$natural: 1}}"));
        assertThat(planned).as(filter + hinted).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(scanned);
        return planned;
    }

    private BsonDocument explain0(String db, String inner) {
        BsonDocument reply = run(db, "{explain: " + inner + ", verbosity: 'executionStats'}");
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
        return reply;
    }

    private static List<BsonValue> idsOf(BsonDocument reply) {
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(d -> d.asDocument().get("_id")).toList();
    }

    @Test
    void aSortOnIdStreamsInIdOrderInsteadOfSortingEverything() {
        // 3 MiB of documents, over the tests' 2 MB sort memory limit: only a sort that streams can return them all
        BsonArray big = new BsonArray();
        for (int i = 0; i < 30; i++) {
            big.add(new BsonDocument("_id", new BsonInt32(i)).append("n", new BsonInt32(-i)).append("pad", new BsonString("x".repeat(100_000))));
        }
        run("plan3", new BsonDocument("insert", new BsonString("big")).append("documents", big));
        BsonDocument blocking = run("plan3", "{find: 'big', sort: {n: 1}, projection: {pad: 0}, allowDiskUse: false}");
        assertThat(blocking.getInt32("code").getValue()).as(blocking.toJson()).isEqualTo(292);
        BsonDocument streamed = run("plan3", "{find: 'big', filter: {_id: {$gte: 5}}, sort: {_id: 1}, projection: {pad: 0}, batchSize: 1000}");
        assertThat(ids(streamed)).as(streamed.toJson()).containsExactlyElementsOf(java.util.stream.IntStream.range(5, 30).boxed().toList());

        // workload E's scan: a start key, _id order, a limit
        assertThat(ids(run(DB, "{find: 'c', filter: {_id: {$gte: 20}}, sort: {_id: 1}, limit: 3}"))).containsExactly(20, 21, 22);
        assertThat(ids(run(DB, "{find: 'c', filter: {country: 'FR'}, sort: {_id: 1, n: -1}, hint: {$natural: 1}}")))
                .containsExactly(0, 5, 10, 15, 20, 25, 30, 35, 40, 45);
        assertThat(ids(run(DB, "{find: 'c', filter: {n: {$lt: 4}}, sort: {_id: -1}}"))).containsExactly(3, 2, 1, 0);
        assertThat(ids(run(DB, "{find: 'c', sort: {_id: 1}, skip: 47}"))).containsExactly(47, 48, 49);
        assertThat(drain("{find: 'c', filter: {_id: {$gte: 30}}, sort: {_id: 1}, batchSize: 7}")).containsExactlyElementsOf(
                java.util.stream.IntStream.range(30, 50).boxed().toList());
    }

    @Test
    void writesThroughAnIndexVisitEachDocumentOnce() {
        BsonArray docs = new BsonArray();
        for (int i = 0; i < 100; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i)).append("k", new BsonInt32(i)));
        }
        run("plan2", new BsonDocument("insert", new BsonString("w")).append("documents", docs));
        run("plan2", "{createIndexes: 'w', indexes: [{key: {k: 1}, name: 'k_1'}]}");
        BsonDocument plan = run("plan2", "{explain: {update: 'w', updates: [{q: {k: {$gte: 0}}, u: {$inc: {k: 1000}}, multi: true}]}}");
        assertThat(winning(plan).getDocument("inputStage").getString("indexName").getValue()).isEqualTo("k_1");
        // each document moves further along the index it is scanned by: still updated once
        BsonDocument update = run("plan2", "{update: 'w', updates: [{q: {k: {$gte: 0}}, u: {$inc: {k: 1000}}, multi: true}]}");
        assertThat(update.getNumber("nModified").intValue()).as(update.toJson()).isEqualTo(100);
        assertThat(run("plan2", "{count: 'w', query: {k: {$gte: 1000, $lt: 1100}}}").getNumber("n").intValue()).isEqualTo(100);
        assertThat(run("plan2", "{count: 'w', query: {k: {$gte: 1000, $lt: 1100}}, hint: {$natural: 1}}").getNumber("n").intValue()).isEqualTo(100);
        BsonDocument one = run("plan2", "{update: 'w', updates: [{q: {k: {$gte: 1050}}, u: {$set: {x: 1}}}]}");
        assertThat(one.getNumber("nModified").intValue()).isEqualTo(1);
        assertThat(ids(run("plan2", "{find: 'w', filter: {x: 1}}"))).containsExactly(50);
        BsonDocument delete = run("plan2", "{delete: 'w', deletes: [{q: {k: {$lt: 1010}}, limit: 0}]}");
        assertThat(delete.getNumber("n").intValue()).isEqualTo(10);
        assertThat(run("plan2", "{count: 'w', query: {k: {$lt: 1010}}, hint: 'k_1'}").getNumber("n").intValue()).isZero();
        assertThat(run("plan2", "{delete: 'w', deletes: [{q: {k: {$gte: 1090}}, limit: 1}]}").getNumber("n").intValue()).isEqualTo(1);
        assertThat(run("plan2", "{count: 'w'}").getNumber("n").intValue()).isEqualTo(89);
    }

    @Test
    void aggregateLeadingMatchAndDistinctReadThroughTheIndex() {
        BsonDocument aggregate = run(DB, "{aggregate: 'c', pipeline: [{$match: {country: 'FR', n: {$lt: 30}}}], cursor: {}}");
        assertThat(ids(aggregate)).containsExactly(0, 5, 10, 15, 20, 25);
        BsonDocument explained = run(DB, "{explain: {aggregate: 'c', pipeline: [{$match: {country: 'FR'}}], cursor: {}}}");
        assertThat(winning(explained).getDocument("inputStage").getString("indexName").getValue()).isEqualTo("country_1");
        assertThat(run(DB, "{distinct: 'c', key: 'country', query: {n: {$lt: 10}}}").getArray("values"))
                .containsExactlyInAnyOrder(new BsonString("DE"), new BsonString("FR"));
    }

    @Test
    void indexScansPageThroughGetMore() {
        assertThat(drain("{find: 'c', filter: {n: {$gte: 0}}, batchSize: 7}")).containsExactlyElementsOf(
                java.util.stream.IntStream.range(0, 50).boxed().toList());
        List<Integer> multikey = drain("{find: 'c', filter: {tags: {$in: ['all', 't2']}}, batchSize: 7}");
        assertThat(multikey).hasSize(50).doesNotHaveDuplicates();
        assertThat(drain("{find: 'c', filter: {country: {$in: ['FR', 'DE']}, n: {$lt: 20}}, batchSize: 3}")).hasSize(20).doesNotHaveDuplicates();
    }

    private List<Integer> drain(String find) {
        BsonDocument reply = run(DB, find);
        List<Integer> all = new java.util.ArrayList<>(ids(reply));
        long id = reply.getDocument("cursor").getInt64("id").getValue();
        while (id != 0) {
            BsonDocument more = run(DB, new BsonDocument("getMore", new org.bson.BsonInt64(id)).append("collection", new BsonString("c"))
                    .append("batchSize", new BsonInt32(7)));
            more.getDocument("cursor").getArray("nextBatch").forEach(d -> all.add(d.asDocument().get("_id").asNumber().intValue()));
            id = more.getDocument("cursor").getInt64("id").getValue();
        }
        return all;
    }

    private static List<Integer> ids(BsonDocument reply) {
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument)
                .map(d -> d.get("_id").asNumber().intValue()).toList();
    }
}
