package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import java.util.List;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reads of views through the router: the primary answers a read of a view with its resolved view (169), and the router
 * reruns it as an aggregate of the resolved pipeline plus the read's parts on the resolved collection — unsharded (its
 * primary) or sharded (merged from the shards); writes on a view come back as CommandNotSupportedOnView (166). The fake
 * shards hold the documents and answer aggregates with the query engine.
 */
class ViewsThroughRouterTest extends RouterAgainstFakeCluster {
    /**
     * {@code db.c} with six documents, unsharded on sh1 or sharded on {@code {x: 1}} split at 0; view {@code db.v}: a >= 2.
     *
     * @return db: {@code prefix}, with "s" appended when sharded
     */
    private static String collectionAndView(String prefix, boolean sharded) {
        String db = sharded ? prefix + "s" : prefix;
        List<BsonDocument> docs = Stream.of("{_id: 1, x: -3, a: 1, t: ['p', 'q']}", "{_id: 2, x: -2, a: 2, t: 'p'}", "{_id: 3, x: -1, a: 3}",
                "{_id: 4, x: 1, a: 4, t: ['r']}", "{_id: 5, x: 2, a: 5, t: 'q'}", "{_id: 6, x: 3, a: 6}").map(ExtendedJson::parse).toList();
        if (sharded) {
            CLUSTER.shardCollection(db + ".c", new BsonDocument("x", new BsonInt32(1)), List.<BsonValue>of(new BsonInt32(0)), List.of("sh1", "sh2"));
            CLUSTER.insertOwned(db + ".c", docs);
        } else {
            docs.forEach(d -> CLUSTER.store(FakeCluster.PRIMARY, db + ".c").add(d));
        }
        CLUSTER.views.put(db + ".v", ExtendedJson.parse("{ns: '" + db + ".c', pipeline: [{$match: {a: {$gte: 2}}}]}"));
        return db;
    }

    private static List<Integer> ids(Reply reply) {
        return reply.body().getDocument("cursor").getArray("firstBatch").stream().map(d -> d.asDocument().getInt32("_id").getValue()).toList();
    }

    @ParameterizedTest(name = "sharded: {0}")
    @ValueSource(booleans = {false, true})
    void findOnAViewIsTheViewPipelineThenTheQuery(boolean sharded) throws Exception {
        Reply reply = command(collectionAndView("vr1", sharded), "{find: 'v', filter: {a: {$lte: 5}}, sort: {a: -1}, skip: 1, limit: 2, projection: {a: 1}}");

        reply.assertOk();
        assertThat(ids(reply)).containsExactly(4, 3);
        assertThat(reply.body().getDocument("cursor").getArray("firstBatch").get(0).asDocument().containsKey("x")).isFalse();
    }

    @ParameterizedTest(name = "sharded: {0}")
    @ValueSource(booleans = {false, true})
    void aggregateCountAndDistinctOnAView(boolean sharded) throws Exception {
        String db = collectionAndView("vr2", sharded);
        Reply aggregate = command(db, "{aggregate: 'v', pipeline: [{$match: {a: {$lt: 4}}}, {$sort: {_id: 1}}], cursor: {}}");
        Reply count = command(db, "{count: 'v', query: {a: {$gt: 2}}}");
        Reply distinct = command(db, "{distinct: 'v', key: 't'}");

        assertThat(ids(aggregate)).containsExactly(2, 3);
        assertThat(count.n()).isEqualTo(4);
        assertThat(distinct.body().getArray("values")).extracting(v -> v.asString().getValue()).containsExactlyInAnyOrder("p", "q", "r");
    }

    /** A view's collation is the simple one: a read under another is OptionNotSupportedOnView (167), as in MongoDB. */
    @ParameterizedTest(name = "sharded: {0}")
    @ValueSource(booleans = {false, true})
    void aReadOfAViewUnderANonSimpleCollationIsRefused(boolean sharded) throws Exception {
        String db = collectionAndView("vr5", sharded);
        for (String read : List.of("{find: 'v', collation: {locale: 'en'}}", "{aggregate: 'v', pipeline: [], cursor: {}, collation: {locale: 'en'}}",
                "{count: 'v', collation: {locale: 'fr', strength: 1}}", "{distinct: 'v', key: 't', collation: {locale: 'en'}}")) {
            command(db, read).assertError(400, 167, "Cannot override a view's default collation");
        }
        Reply simple = command(db, "{aggregate: 'v', pipeline: [{$sort: {_id: 1}}], cursor: {}, collation: {locale: 'simple'}}");
        assertThat(ids(simple)).containsExactly(2, 3, 4, 5, 6);
    }

    @Test
    void aFindOptionWithoutAnAggregateEquivalentIsRefusedNamingIt() throws Exception {
        collectionAndView("vr3", false);

        command("vr3", "{find: 'v', singleBatch: true}").assertError(400, 238, "find.singleBatch");
    }

    @Test
    void explainOfAViewReadExplainsTheAggregateOfTheResolvedPipeline() throws Exception {
        collectionAndView("vr4", false);

        command("vr4", "{explain: {find: 'v', filter: {a: 3}}, verbosity: 'queryPlanner'}").assertOk();

        BsonDocument explained = sent(CLUSTER.sh1, "vr4", "explain").getLast().getDocument("explain");
        assertThat(explained.getString("aggregate").getValue()).isEqualTo("c");
        assertThat(explained.getArray("pipeline")).isEqualTo(ExtendedJson.parse("{p: [{$match: {a: {$gte: 2}}}, {$match: {a: 3}}]}").getArray("p"));
    }

    @Test
    void writesOnAViewAreRefusedByThePrimary() throws Exception {
        collectionAndView("vr5", false);

        Reply insert = command("vr5", "{insert: 'v', documents: [{_id: 9}]}");

        assertThat(insert.writeErrors()).singleElement().satisfies(e -> assertThat(e.getInt32("code").getValue()).isEqualTo(166));
        command("vr5", "{findAndModify: 'v', query: {}, remove: true}").assertError(400, 166, "is a view, not a collection");
    }
}
