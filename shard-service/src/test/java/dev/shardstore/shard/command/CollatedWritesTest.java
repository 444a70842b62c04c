package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * update, delete and findAndModify under a statement's (findAndModify's) collation, against real PostgreSQL (MongoDB
 * manual, "Collation"; MongoDB's {@code collation_update} tests): the filter matches under it, {@code sort} orders under
 * it, {@code arrayFilters} and the value-comparing update operators ({@code $min $max $addToSet $pull $pullAll},
 * {@code $push}'s {@code $sort}) compare under it; each case also shows the binary answer differs.
 */
class CollatedWritesTest extends ShardIntegrationTest {
    private static final String DB = "collw";
    private static final String CASELESS = "{locale: 'en', strength: 2}";
    private static final String ACCENTLESS = "{locale: 'en', strength: 1}";
    private static final String NUMERIC = "{locale: 'en', numericOrdering: true}";

    private static final String[] WORDS = {"{_id: 1, w: 'apple'}", "{_id: 2, w: 'APPLE'}", "{_id: 3, w: 'Äpple'}", "{_id: 4, w: 'banana'}"};

    @Test
    void updateManyAndUpdateOneMatchCaseInsensitivelyAtStrength2AndIgnoreAccentsAtStrength1() {
        insertInto(DB, "um", WORDS);
        assertThat(run(DB, "{update: 'um', updates: [{q: {w: 'Apple'}, u: {$set: {k: 1}}, multi: true}]}").getNumber("n").intValue())
                .isZero();
        assertThat(run(DB, "{update: 'um', updates: [{q: {w: 'Apple'}, u: {$set: {k: 2}}, multi: true, collation: " + CASELESS + "}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 2, nModified: 2, ok: 1.0}"));
        assertThat(run(DB, "{update: 'um', updates: [{q: {w: 'Apple'}, u: {$set: {a: 1}}, multi: true, collation: " + ACCENTLESS + "}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 3, nModified: 3, ok: 1.0}"));
        assertThat(documentsOf(DB, "um")).extracting(d -> d.toJson()).containsExactly(
                ExtendedJson.parse("{_id: 1, w: 'apple', k: 2, a: 1}").toJson(), ExtendedJson.parse("{_id: 2, w: 'APPLE', k: 2, a: 1}").toJson(),
                ExtendedJson.parse("{_id: 3, w: 'Äpple', a: 1}").toJson(), ExtendedJson.parse("{_id: 4, w: 'banana'}").toJson());

        // one statement, the first match; a string _id under the collation is no binary lookup: 'ABC' finds 'abc'
        insertInto(DB, "uo", "{_id: 'abc', v: 0}", "{_id: 'xyz', v: 0}");
        assertThat(run(DB, "{update: 'uo', updates: [{q: {_id: 'ABC'}, u: {$inc: {v: 1}}}]}").getNumber("n").intValue()).isZero();
        assertThat(run(DB, "{update: 'uo', updates: [{q: {_id: 'ABC'}, u: {$inc: {v: 1}}, collation: " + CASELESS + "}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 1, nModified: 1, ok: 1.0}"));
        assertThat(documentsOf(DB, "uo")).containsExactly(ExtendedJson.parse("{_id: 'abc', v: 1}"), ExtendedJson.parse("{_id: 'xyz', v: 0}"));
    }

    @Test
    void aPipelineUpdatesExpressionsCompareUnderTheStatementsCollation() {
        insertInto(DB, "pu", WORDS);
        String pipeline = "[{$set: {same: {$eq: ['$w', 'APPLE']}}}]";
        run(DB, "{update: 'pu', updates: [{q: {_id: 1}, u: " + pipeline + "}]}");
        run(DB, "{update: 'pu', updates: [{q: {_id: 2}, u: " + pipeline + ", collation: " + CASELESS + "}]}");
        run(DB, "{update: 'pu', updates: [{q: {_id: 1.0}, u: [{$set: {caseless: {$eq: ['$w', 'APPLE']}}}], collation: " + CASELESS + "}]}");
        assertThat(documentsOf(DB, "pu").subList(0, 2)).containsExactly(ExtendedJson.parse("{_id: 1, w: 'apple', same: false, caseless: true}"),
                ExtendedJson.parse("{_id: 2, w: 'APPLE', same: true}"));
    }

    @Test
    void deleteManyAndDeleteOneMatchUnderTheirStatementsCollation() {
        insertInto(DB, "del", WORDS);
        assertThat(run(DB, "{delete: 'del', deletes: [{q: {w: 'APPLE'}, limit: 1, collation: " + CASELESS + "},"
                + " {q: {w: 'BANANA'}, limit: 0}]}")).isEqualTo(ExtendedJson.parse("{n: 1, ok: 1.0}"));
        assertThat(ids("del")).containsExactly(2, 3, 4);
        assertThat(run(DB, "{delete: 'del', deletes: [{q: {w: 'apple'}, limit: 0, collation: " + ACCENTLESS + "}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 2, ok: 1.0}"));
        assertThat(ids("del")).containsExactly(4);
    }

    @Test
    void numericOrderingSortPicksTheDocumentOfUpdateOneAndFindAndModify() {
        insertInto(DB, "sorted", "{_id: 1, n: '10'}", "{_id: 2, n: '9'}", "{_id: 3, n: '100'}");
        run(DB, "{update: 'sorted', updates: [{q: {}, u: {$set: {binary: true}}, sort: {n: 1}}]}");
        run(DB, "{update: 'sorted', updates: [{q: {}, u: {$set: {numeric: true}}, sort: {n: 1}, collation: " + NUMERIC + "}]}");
        assertThat(documentsOf(DB, "sorted")).containsExactly(ExtendedJson.parse("{_id: 1, n: '10', binary: true}"),
                ExtendedJson.parse("{_id: 2, n: '9', numeric: true}"), ExtendedJson.parse("{_id: 3, n: '100'}"));

        assertThat(run(DB, "{findAndModify: 'sorted', query: {}, sort: {n: -1}, update: {$set: {last: 'binary'}}}")
                .getDocument("value").getInt32("_id").getValue()).isEqualTo(2);
        BsonDocument numeric = run(DB, "{findAndModify: 'sorted', query: {}, sort: {n: -1}, update: {$set: {last: 'numeric'}}, new: true,"
                + " collation: " + NUMERIC + "}");
        assertThat(numeric.getDocument("value")).isEqualTo(ExtendedJson.parse("{_id: 3, n: '100', last: 'numeric'}"));
    }

    @Test
    void findAndModifyMatchesUnderItsCollation() {
        insertInto(DB, "fam", WORDS);
        BsonDocument binary = run(DB, "{findAndModify: 'fam', query: {w: 'BANANA'}, remove: true}");
        assertThat(binary.get("value").isNull()).isTrue();
        BsonDocument removed = run(DB, "{findAndModify: 'fam', query: {w: 'BANANA'}, remove: true, collation: " + CASELESS + "}");
        assertThat(removed.getDocument("value")).isEqualTo(ExtendedJson.parse("{_id: 4, w: 'banana'}"));
        BsonDocument updated = run(DB, "{findAndModify: 'fam', query: {w: 'apple'}, sort: {_id: -1}, update: {$set: {k: 1}}, new: true,"
                + " collation: " + ACCENTLESS + "}");
        assertThat(updated.getDocument("value")).isEqualTo(ExtendedJson.parse("{_id: 3, w: 'Äpple', k: 1}"));
        assertThat(ids("fam")).containsExactly(1, 2, 3);
    }

    @Test
    void addToSetPullMinMaxPushSortAndArrayFiltersCompareUnderTheCollation() {
        insertInto(DB, "ops", "{_id: 1, tags: ['a', 'B'], s: 'b', n: '10', nums: ['10', '9'], xs: ['x', 'X', 'y']}");
        String update = "{update: 'ops', updates: [{q: {_id: 1}, u: %s, collation: " + CASELESS + "}]}";
        assertThat(run(DB, update.formatted("{$addToSet: {tags: {$each: ['A', 'c']}}}")).getNumber("nModified").intValue()).isEqualTo(1);
        assertThat(tags()).containsExactly("a", "B", "c");
        run(DB, update.formatted("{$pull: {tags: 'b'}}"));
        assertThat(tags()).containsExactly("a", "c");
        run(DB, update.formatted("{$pullAll: {tags: ['C']}}"));
        assertThat(tags()).containsExactly("a");
        run(DB, update.formatted("{$pull: {tags: {$in: ['A']}}}"));
        assertThat(tags()).isEmpty();
        // 'B' equals 'b' at strength 2, so $min changes nothing; binary 'B' < 'b'
        assertThat(run(DB, update.formatted("{$min: {s: 'B'}}")).getNumber("nModified").intValue()).isZero();
        run(DB, update.formatted("{$set: {'xs.$[e]': 'z'}}").replace("collation", "arrayFilters: [{e: 'x'}], collation"));
        assertThat(document().getArray("xs")).extracting(v -> v.asString().getValue()).containsExactly("z", "z", "y");

        String numeric = "{update: 'ops', updates: [{q: {_id: 1}, u: %s, collation: " + NUMERIC + "}]}";
        assertThat(run(DB, numeric.formatted("{$max: {n: '9'}}")).getNumber("nModified").intValue()).isZero();
        run(DB, numeric.formatted("{$push: {nums: {$each: ['100'], $sort: 1}}}"));
        assertThat(document().getArray("nums")).extracting(v -> v.asString().getValue()).containsExactly("9", "10", "100");

        run(DB, "{update: 'ops', updates: [{q: {_id: 1}, u: {$min: {s: 'B'}, $max: {n: '9'}}}]}");
        assertThat(document().getString("s").getValue()).as("binary $min").isEqualTo("B");
        assertThat(document().getString("n").getValue()).as("binary $max").isEqualTo("9");
    }

    @Test
    void anUpsertUnderACollationMatchesAVariantOrSeedsTheNewDocumentFromTheFiltersEqualities() {
        insertInto(DB, "ups", "{_id: 1, w: 'apple'}");
        assertThat(run(DB, "{update: 'ups', updates: [{q: {w: 'APPLE'}, u: {$inc: {k: 1}}, upsert: true, collation: " + CASELESS + "}]}"))
                .isEqualTo(ExtendedJson.parse("{n: 1, nModified: 1, ok: 1.0}"));
        BsonDocument inserted = run(DB, "{update: 'ups', updates: [{q: {w: 'Cherry'}, u: {$inc: {k: 1}}, upsert: true, collation: "
                + CASELESS + "}]}");
        assertThat(inserted.getNumber("n").intValue()).isEqualTo(1);
        BsonValue id = inserted.getArray("upserted").get(0).asDocument().get("_id");
        assertThat(documentsOf(DB, "ups")).containsExactly(ExtendedJson.parse("{_id: 1, w: 'apple', k: 1}"),
                new BsonDocument("_id", id).append("w", new org.bson.BsonString("Cherry")).append("k", new org.bson.BsonInt32(1)));
        BsonDocument upserted = run(DB, "{findAndModify: 'ups', query: {w: 'CHERRY'}, update: {$inc: {k: 1}}, upsert: true, new: true,"
                + " collation: " + CASELESS + "}");
        assertThat(upserted.getDocument("value").getInt32("k").getValue()).as("matched the upserted 'Cherry'").isEqualTo(2);
    }

    @Test
    void explainOfAWriteUnderACollationScansAndTimeSeriesWritesRefuseIt() {
        insertInto(DB, "ex", WORDS);
        run(DB, "{createIndexes: 'ex', indexes: [{key: {w: 1}, name: 'w_1'}]}");
        assertThat(plan("{explain: {update: 'ex', updates: [{q: {w: 'apple'}, u: {$set: {k: 1}}}]}}")).contains("w_1");
        assertThat(plan("{explain: {delete: 'ex', deletes: [{q: {w: 'apple'}, limit: 0, collation: " + CASELESS + "}]}}"))
                .doesNotContain("w_1").contains("COLLSCAN");

        run(DB, "{create: 'ts', timeseries: {timeField: 't', metaField: 'm'}}");
        insertInto(DB, "ts", "{t: {$date: '2024-01-01T00:00:00Z'}, m: 'a'}");
        BsonDocument refused = run(DB, "{delete: 'ts', deletes: [{q: {m: 'A'}, limit: 0, collation: " + CASELESS + "}]}");
        assertThat(refused.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue()).isEqualTo(238);
        assertThat(refused.getArray("writeErrors").get(0).asDocument().getString("errmsg").getValue()).contains("delete.deletes.0.collation");
        BsonDocument refusedUpdate = run(DB, "{update: 'ts', updates: [{q: {m: 'A'}, u: {$set: {x: 1}}, multi: true, collation: " + CASELESS + "}]}");
        assertThat(refusedUpdate.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue()).isEqualTo(238);
        assertThat(run(DB, "{count: 'ts'}").getNumber("n").intValue()).isEqualTo(1);
    }

    private String plan(String explain) {
        return run(DB, explain).getDocument("queryPlanner").getDocument("winningPlan").toJson();
    }

    private BsonDocument document() {
        return documentsOf(DB, "ops").getFirst();
    }

    private List<String> tags() {
        return document().getArray("tags").stream().map(v -> v.asString().getValue()).toList();
    }

    private List<Integer> ids(String collection) {
        return documentsOf(DB, collection).stream().map(d -> d.getInt32("_id").getValue()).toList();
    }
}
