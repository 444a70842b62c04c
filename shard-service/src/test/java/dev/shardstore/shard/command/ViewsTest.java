package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * Views on the primary shard over real HTTP: {@code create} with {@code viewOn}/{@code pipeline} records them in the
 * catalog; listCollections lists them as {@code type: "view"}; reads are answered with the resolved view (169,
 * {@code resolvedView}) for the router, writes refused (166); views on views resolve innermost first; cycles are refused
 * (93); {@code drop} removes a view and nothing else.
 */
class ViewsTest extends ShardIntegrationTest {
    private static int code(BsonDocument reply) {
        return reply.getNumber("code", new BsonInt32(0)).intValue();
    }

    private List<BsonDocument> collections(String db) {
        return run(db, "{listCollections: 1}").getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    @Test
    void aViewIsListedAndItsReadsAnswerTheResolvedPipelineViewsOnViewsInnermostFirst() {
        insertInto("vw_read", "c", "{_id: 1, a: 1}");
        assertThat(run("vw_read", "{create: 'v1', viewOn: 'c', pipeline: [{$match: {a: 1}}]}").getNumber("ok").intValue()).isEqualTo(1);
        run("vw_read", "{create: 'v2', viewOn: 'v1', pipeline: [{$project: {a: 1}}]}");

        assertThat(collections("vw_read")).filteredOn(c -> c.getString("name").getValue().equals("v1")).singleElement()
                .isEqualTo(ExtendedJson.parse("{name: 'v1', type: 'view', options: {viewOn: 'c', pipeline: [{$match: {a: 1}}]}, info: {readOnly: true}}"));
        for (String read : List.of("{find: 'v2', filter: {b: 1}}", "{aggregate: 'v2', pipeline: [], cursor: {}}", "{count: 'v2'}",
                "{distinct: 'v2', key: 'a'}", "{explain: {find: 'v2'}}")) {
            BsonDocument reply = run("vw_read", read);
            assertThat(code(reply)).as(read).isEqualTo(169);
            assertThat(reply.getDocument("resolvedView")).isEqualTo(ExtendedJson.parse(
                    "{ns: 'vw_read.c', pipeline: [{$match: {a: 1}}, {$project: {a: 1}}]}"));
        }
    }

    @Test
    void writesAndIndexesOnAViewAreRefused() {
        run("vw_write", "{create: 'v', viewOn: 'c'}");

        for (String write : List.of("{insert: 'v', documents: [{_id: 1}]}", "{update: 'v', updates: [{q: {}, u: {$set: {a: 1}}}]}",
                "{delete: 'v', deletes: [{q: {}, limit: 0}]}", "{findAndModify: 'v', query: {}, remove: true}",
                "{createIndexes: 'v', indexes: [{key: {a: 1}, name: 'a_1'}]}", "{listIndexes: 'v'}")) {
            BsonDocument reply = run("vw_write", write);
            assertThat(code(reply)).as(write).isEqualTo(166);
            assertThat(reply.getString("errmsg").getValue()).isEqualTo("Namespace vw_write.v is a view, not a collection");
        }
    }

    @Test
    void cyclesAndBadDefinitionsAreRefusedAndTheSameDefinitionAgainIsANoOp() {
        run("vw_cycle", "{create: 'a', viewOn: 'b'}");

        assertThat(code(run("vw_cycle", "{create: 'b', viewOn: 'a'}"))).isEqualTo(93);
        assertThat(code(run("vw_cycle", "{create: 'self', viewOn: 'self'}"))).isEqualTo(93);
        assertThat(code(run("vw_cycle", "{create: 'x', viewOn: 3}"))).isEqualTo(14);
        assertThat(code(run("vw_cycle", "{create: 'x', viewOn: ''}"))).isEqualTo(72);
        assertThat(code(run("vw_cycle", "{create: 'x', viewOn: 'c', pipeline: [{$bogus: 1}]}"))).isNotZero();
        assertThat(run("vw_cycle", "{create: 'a', viewOn: 'b'}").getNumber("ok").intValue()).isEqualTo(1);
        assertThat(code(run("vw_cycle", "{create: 'a', viewOn: 'c'}"))).isEqualTo(48);
        assertThat(collections("vw_cycle")).extracting(c -> c.getString("name").getValue()).containsExactly("a");
    }

    @Test
    void dropRemovesTheViewAndLeavesItsCollection() {
        insertInto("vw_drop", "c", "{_id: 1}");
        run("vw_drop", "{create: 'v', viewOn: 'c'}");

        assertThat(run("vw_drop", "{drop: 'v'}").getNumber("ok").intValue()).isEqualTo(1);

        assertThat(collections("vw_drop")).extracting(c -> c.getString("name").getValue()).containsExactly("c");
        assertThat(documentsOf("vw_drop", "c")).hasSize(1);
    }
}
