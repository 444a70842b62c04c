package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/** {@code distinct} and {@code findAndModify} over the real HTTP command endpoint, with MongoDB's manual examples. */
class DistinctFindAndModifyTest extends ShardIntegrationTest {
    private static final String DB = "fam";

    @Test
    void distinctListsValuesWithArrayElementsAndHonoursTheQuery() {
        insertInto(DB, "inventory",
                "{_id: 1, dept: 'A', item: {sku: '111', color: 'red'}, sizes: ['S', 'M']}",
                "{_id: 2, dept: 'A', item: {sku: '111', color: 'blue'}, sizes: ['M', 'L']}",
                "{_id: 3, dept: 'B', item: {sku: '222', color: 'blue'}, sizes: 'S'}",
                "{_id: 4, dept: 'A', item: {sku: '333', color: 'black'}, sizes: ['S']}",
                "{_id: 5, dept: 1}",
                "{_id: 6, dept: 1.0, sizes: null}");

        assertThat(run(DB, "{distinct: 'inventory', key: 'dept'}"))
                .isEqualTo(ExtendedJson.parse("{values: [1, 'A', 'B'], ok: 1.0}"));
        assertThat(run(DB, "{distinct: 'inventory', key: 'item.sku'}"))
                .isEqualTo(ExtendedJson.parse("{values: ['111', '222', '333'], ok: 1.0}"));
        assertThat(run(DB, "{distinct: 'inventory', key: 'sizes'}"))
                .isEqualTo(ExtendedJson.parse("{values: [null, 'L', 'M', 'S'], ok: 1.0}"));
        assertThat(run(DB, "{distinct: 'inventory', key: 'item.sku', query: {dept: 'A'}}"))
                .isEqualTo(ExtendedJson.parse("{values: ['111', '333'], ok: 1.0}"));
        assertThat(run(DB, "{distinct: 'nothing', key: 'a'}")).isEqualTo(ExtendedJson.parse("{values: [], ok: 1.0}"));
        assertThat(run(DB, "{distinct: 'inventory', key: 1}").getNumber("code").intValue()).isEqualTo(14);
        assertThat(run(DB, "{distinct: 'inventory'}").getNumber("code").intValue()).isEqualTo(9);
        assertThat(run(DB, "{distinct: 'inventory', key: 'a', query: {a: {$bad: 1}}}").getNumber("code").intValue()).isEqualTo(2);
    }

    @Test
    void findAndModifyUpdatesTheFirstInSortOrderAndReturnsPreOrPostImage() {
        insertInto(DB, "people",
                "{_id: 1, name: 'Tom', state: 'active', rating: 100, score: 5}",
                "{_id: 2, name: 'Tom', state: 'active', rating: 80, score: 1}",
                "{_id: 3, name: 'Tom', state: 'inactive', rating: 120, score: 1}");

        BsonDocument pre = run(DB, """
                {findAndModify: 'people', query: {name: 'Tom', state: 'active', rating: {$gt: 10}},
                 sort: {rating: 1}, update: {$inc: {score: 1}}}""");
        assertThat(pre).isEqualTo(ExtendedJson.parse("""
                {lastErrorObject: {n: 1, updatedExisting: true},
                 value: {_id: 2, name: 'Tom', state: 'active', rating: 80, score: 1}, ok: 1.0}"""));

        BsonDocument post = run(DB, """
                {findandmodify: 'people', query: {name: 'Tom'}, sort: {rating: -1}, update: {$set: {state: 'x'}},
                 new: true, fields: {_id: 0, state: 1}}""");
        assertThat(post).isEqualTo(ExtendedJson.parse("{lastErrorObject: {n: 1, updatedExisting: true}, value: {state: 'x'}, ok: 1.0}"));
        assertThat(documentsOf(DB, "people").get(1)).isEqualTo(ExtendedJson.parse("{_id: 2, name: 'Tom', state: 'active', rating: 80, score: 2}"));
        assertThat(documentsOf(DB, "people").get(2).getString("state").getValue()).isEqualTo("x");

        BsonDocument replaced = run(DB, "{findAndModify: 'people', query: {_id: 1}, update: {name: 'Ann'}, new: true}");
        assertThat(replaced.getDocument("value")).isEqualTo(ExtendedJson.parse("{_id: 1, name: 'Ann'}"));

        BsonDocument none = run(DB, "{findAndModify: 'people', query: {name: 'Zed'}, update: {$set: {a: 1}}}");
        assertThat(none).isEqualTo(ExtendedJson.parse("{lastErrorObject: {n: 0, updatedExisting: false}, value: null, ok: 1.0}"));
    }

    @Test
    void findAndModifyUpsertsWithSetOnInsertAndRemoves() {
        BsonDocument upserted = run(DB, """
                {findAndModify: 'upserts', query: {_id: 7, name: 'Gus'}, update: {$inc: {score: 1}, $setOnInsert: {state: 'new'}},
                 upsert: true, new: true}""");
        assertThat(upserted).isEqualTo(ExtendedJson.parse("""
                {lastErrorObject: {n: 1, updatedExisting: false, upserted: 7},
                 value: {_id: 7, name: 'Gus', score: 1, state: 'new'}, ok: 1.0}"""));

        BsonDocument again = run(DB, """
                {findAndModify: 'upserts', query: {_id: 7, name: 'Gus'}, update: {$inc: {score: 1}, $setOnInsert: {state: 'again'}},
                 upsert: true}""");
        assertThat(again).isEqualTo(ExtendedJson.parse("""
                {lastErrorObject: {n: 1, updatedExisting: true},
                 value: {_id: 7, name: 'Gus', score: 1, state: 'new'}, ok: 1.0}"""));

        BsonDocument notNew = run(DB, "{findAndModify: 'upserts', query: {_id: 8}, update: {$set: {a: 1}}, upsert: true}");
        assertThat(notNew).isEqualTo(ExtendedJson.parse("{lastErrorObject: {n: 1, updatedExisting: false, upserted: 8}, value: null, ok: 1.0}"));

        BsonDocument removed = run(DB, "{findAndModify: 'upserts', query: {}, sort: {_id: -1}, remove: true, fields: {a: 1}}");
        assertThat(removed).isEqualTo(ExtendedJson.parse("{lastErrorObject: {n: 1}, value: {_id: 8, a: 1}, ok: 1.0}"));
        assertThat(documentsOf(DB, "upserts")).extracting(d -> d.get("_id").asInt32().getValue()).containsExactly(7);

        assertThat(run(DB, "{findAndModify: 'missing', query: {}, remove: true}"))
                .isEqualTo(ExtendedJson.parse("{lastErrorObject: {n: 0}, value: null, ok: 1.0}"));
    }

    @Test
    void findAndModifyTakesArrayFiltersAndThePositionalOperator() {
        insertInto(DB, "grades", "{_id: 1, grades: [{grade: 80, mean: 75}, {grade: 85, mean: 90}, {grade: 85, mean: 85}]}");

        BsonDocument filtered = run(DB, """
                {findAndModify: 'grades', query: {_id: 1}, update: {$set: {'grades.$[elem].mean': 100}},
                 arrayFilters: [{'elem.grade': {$gte: 85}}], new: true}""");
        assertThat(filtered.getDocument("value")).isEqualTo(ExtendedJson.parse(
                "{_id: 1, grades: [{grade: 80, mean: 75}, {grade: 85, mean: 100}, {grade: 85, mean: 100}]}"));

        BsonDocument positional = run(DB, """
                {findAndModify: 'grades', query: {'grades.grade': 80}, update: {$inc: {'grades.$.mean': 1}}, new: true,
                 fields: {grades: {$slice: 1}}}""");
        assertThat(positional.getDocument("value")).isEqualTo(ExtendedJson.parse("{_id: 1, grades: [{grade: 80, mean: 76}]}"));
        assertThat(code("{findAndModify: 'grades', query: {}, update: {$set: {'grades.$[x]': 1}}}")).isEqualTo(2);
    }

    @Test
    void findAndModifyRefusesInconsistentOptionsAndReportsUpdateErrors() {
        insertInto(DB, "errors", "{_id: 1, a: 1}");
        assertThat(code("{findAndModify: 'errors', query: {}}")).isEqualTo(9);
        assertThat(code("{findAndModify: 'errors', remove: true, update: {$set: {a: 1}}}")).isEqualTo(9);
        assertThat(code("{findAndModify: 'errors', remove: true, upsert: true}")).isEqualTo(9);
        assertThat(code("{findAndModify: 'errors', remove: true, new: true}")).isEqualTo(9);
        assertThat(code("{findAndModify: 'errors', update: {$set: {_id: 2}}}")).isEqualTo(66);
        assertThat(code("{findAndModify: 'errors', update: {$inc: {a: 'x'}}}")).isEqualTo(14);
        assertThat(code("{findAndModify: 'errors', update: {$set: {a: 1}, $inc: {a: 1}}}")).isEqualTo(40);
        assertThat(code("{findAndModify: 'errors', update: {$foo: {a: 1}}}")).isEqualTo(9);
        assertThat(documentsOf(DB, "errors")).containsExactly(ExtendedJson.parse("{_id: 1, a: 1}"));
    }

    private int code(String command) {
        BsonDocument reply = run(DB, command);
        return reply.getNumber("code").intValue();
    }
}
