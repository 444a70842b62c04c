package dev.shardstore.router.query;

import dev.shardstore.router.testing.StubPeer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.engine.aggregate.Pipeline;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.DistinctValues;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Projection;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.infra.EmbeddedInfra;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The read path over real HTTP against a stub config service and three stub shards holding the chunks of
 * {@code db.c} (shard key {@code {x: 1}}: {@code [MinKey, 0)} on s0, {@code [0, 100)} on s1, {@code [100, MaxKey)}
 * on s2): every reply is compared with the query engine run over the union of the shards' documents, and the
 * commands the shards received show the targeting and the rewrites.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ShardedReadsHttpTest {
    private static final ObjectId EPOCH = new ObjectId();
    private static final BsonTimestamp TS = new BsonTimestamp(7, 1);
    private static final List<StubShard> SHARDS = List.of(new StubShard("s0"), new StubShard("s1"), new StubShard("s2"));
    private static final RoutingTable TABLE = table();
    private static final StubPeer CONFIG = new StubPeer((db, cmd) -> config(cmd));
    /** A registered shard that owns no chunk of db.c any more but still holds 7 of its orphans (a donor awaiting range deletion). */
    private static final StubPeer FORMER_OWNER = new StubPeer((db, cmd) -> distribution(0, 7));
    /** A registered shard with nothing of db.c. */
    private static final StubPeer BYSTANDER = new StubPeer((db, cmd) -> distribution(0, 0));
    private static final List<BsonDocument> ALL = new ArrayList<>();
    /** The unsharded collection {@code db.u} on the primary shard s0. */
    private static final List<BsonDocument> U = new ArrayList<>();

    static {
        Random random = new Random(11);
        for (int i = 0; i < 300; i++) {
            BsonDocument doc = new BsonDocument("_id", new BsonInt32(i)).append("x", new BsonInt32(random.nextInt(200) - 50))
                    .append("g", new BsonString(String.valueOf((char) ('a' + random.nextInt(3))))).append("n", new BsonInt32(random.nextInt(10)))
                    .append("a", new BsonArray(List.of(new BsonInt32(i), new BsonInt32(i + 1), new BsonInt32(i + 2))));
            ALL.add(doc);
            String owner = TABLE.chunkFor(doc).shard();
            SHARDS.stream().filter(s -> s.name.equals(owner)).findFirst().orElseThrow().documents.add(doc);
        }
        for (String g : List.of("a", "b")) {
            U.add(new BsonDocument("_id", new BsonString(g)).append("label", new BsonString("group " + g)));
        }
        SHARDS.getFirst().others.put("u", U);
    }

    private static RoutingTable table() {
        ShardKeyPattern key = ShardKeyPattern.of(ExtendedJson.parse("{x: 1}"));
        List<BsonDocument> bounds = List.of(key.globalMin(), ExtendedJson.parse("{x: 0}"), ExtendedJson.parse("{x: 100}"), key.globalMax());
        List<Chunk> chunks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            chunks.add(new Chunk(new ChunkRange(bounds.get(i), bounds.get(i + 1)), "s" + i, new ChunkVersion(1, i, EPOCH, TS)));
        }
        return RoutingTable.of(new ShardedCollection("db.c", UUID.randomUUID(), EPOCH, TS, key, false, false), chunks);
    }

    private static BsonDocument config(BsonDocument cmd) {
        return switch (cmd.getFirstKey()) {
            case "_configsvrGetDatabase" -> cmd.getString("_configsvrGetDatabase").getValue().equals("db")
                    ? Replies.ok(new BsonDocument("database", new BsonDocument("_id", new BsonString("db")).append("primary", new BsonString("s0"))
                            .append("version", new DatabaseVersion(UUID.randomUUID(), 1, TS).toBson())))
                    : ErrorReplies.errorReply(ErrorCode.NamespaceNotFound, "no database", new BsonDocument());
            case "listShards" -> {
                BsonArray shards = new BsonArray();
                SHARDS.forEach(s -> shards.add(new BsonDocument("_id", new BsonString(s.name)).append("host", new BsonString(s.peer.url()))));
                shards.add(new BsonDocument("_id", new BsonString("s3")).append("host", new BsonString(FORMER_OWNER.url())));
                shards.add(new BsonDocument("_id", new BsonString("s4")).append("host", new BsonString(BYSTANDER.url())));
                yield Replies.ok(new BsonDocument("shards", shards));
            }
            case "_configsvrGetRoutingTable" -> {
                BsonArray chunks = new BsonArray();
                TABLE.chunks().forEach(c -> chunks.add(c.toBson()));
                yield cmd.getString("_configsvrGetRoutingTable").getValue().equals("db.c")
                        ? Replies.ok(new BsonDocument("collection", TABLE.collection().toBson()).append("chunks", chunks)
                                .append("full", org.bson.BsonBoolean.TRUE))
                        : Replies.ok(new BsonDocument("collection", BsonNull.VALUE).append("chunks", new BsonArray()));
            }
            case "find" -> Replies.cursor(true, List.of(TABLE.collection().toBson()), 0, "config.collections");
            default -> throw new IllegalArgumentException("the stub config service does not know " + cmd.getFirstKey());
        };
    }

    private static BsonDocument distribution(long owned, long orphaned) {
        return Replies.ok(new BsonDocument("numOwnedDocuments", new org.bson.BsonInt64(owned)).append("ownedSizeBytes", new org.bson.BsonInt64(owned * 100))
                .append("numOrphanedDocs", new org.bson.BsonInt64(orphaned)).append("orphanedSizeBytes", new org.bson.BsonInt64(orphaned * 100)));
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.kafka.bootstrap-servers", () -> EmbeddedInfra.shared().bootstrapServers());
        registry.add("shardstore.config-url", CONFIG::url);
        // never a real balancer service: one of a local cluster may listen on the default port
        registry.add("shardstore.router.balancer-url", () -> "http://127.0.0.1:9");
    }

    @AfterAll
    static void stop() {
        SHARDS.forEach(s -> s.peer.close());
        CONFIG.close();
        FORMER_OWNER.close();
        BYSTANDER.close();
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void forget() {
        SHARDS.forEach(s -> s.peer.received.clear());
    }

    private HttpResponse<String> post(String db, BsonDocument command) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/v1/databases/" + db + "/command"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ExtendedJson.toJson(command))).build(), HttpResponse.BodyHandlers.ofString());
    }

    private BsonDocument command(String db, BsonDocument command) throws Exception {
        HttpResponse<String> response = post(db, command);
        BsonDocument body = ExtendedJson.parse(response.body());
        assertThat(response.statusCode()).as(body.toJson()).isEqualTo(200);
        return body;
    }

    /** The error code of a command that must be refused with a 4xx. */
    private int refusal(String db, String json) throws Exception {
        HttpResponse<String> response = post(db, ExtendedJson.parse(json));
        assertThat(response.statusCode()).as(response.body()).isBetween(400, 499);
        return ExtendedJson.parse(response.body()).getInt32("code").getValue();
    }

    private BsonDocument command(String json) throws Exception {
        return command("db", ExtendedJson.parse(json));
    }

    /** A cursor's documents to its end, with getMores of {@code batchSize}. */
    private List<BsonDocument> drain(BsonDocument reply, int batchSize) throws Exception {
        List<BsonDocument> out = new ArrayList<>();
        BsonDocument cursor = reply.getDocument("cursor");
        cursor.getArray("firstBatch").forEach(v -> out.add(v.asDocument()));
        long id = cursor.getNumber("id").longValue();
        while (id != 0) {
            cursor = command("db", new BsonDocument("getMore", new org.bson.BsonInt64(id)).append("collection", new BsonString("c"))
                    .append("batchSize", new BsonInt32(batchSize))).getDocument("cursor");
            assertThat(cursor.getArray("nextBatch").size()).isLessThanOrEqualTo(batchSize);
            cursor.getArray("nextBatch").forEach(v -> out.add(v.asDocument()));
            id = cursor.getNumber("id").longValue();
        }
        return out;
    }

    /** Documents as they come back over JSON (so expected and actual compare with the same number types). */
    private static List<BsonDocument> viaJson(List<BsonDocument> docs) {
        return docs.stream().map(d -> ExtendedJson.parse(ExtendedJson.toJson(d))).toList();
    }

    private static Stream<BsonDocument> matching(String filter) {
        Filter f = Filter.parse(ExtendedJson.parse(filter));
        return ALL.stream().filter(f::matches);
    }

    private List<String> shardsThatReceived(String command) {
        return SHARDS.stream().filter(s -> !s.peer.received(command).isEmpty()).map(s -> s.name).toList();
    }

    @Test
    void aSortedFindMergesAllShardsAndAppliesSkipAndLimitOnTheRouter() throws Exception {
        BsonDocument reply = command("{find: 'c', filter: {n: {$gte: 3}}, sort: {n: -1, x: 1, _id: 1}, skip: 7, limit: 60, batchSize: 8}");
        List<BsonDocument> expected = matching("{n: {$gte: 3}}").sorted(Sort.parse(ExtendedJson.parse("{n: -1, x: 1, _id: 1}")).comparator())
                .skip(7).limit(60).toList();
        assertThat(reply.getDocument("cursor").getArray("firstBatch")).hasSize(8);
        assertThat(drain(reply, 9)).isEqualTo(viaJson(expected));
        assertThat(shardsThatReceived("find")).containsExactly("s0", "s1", "s2");
        for (StubShard shard : SHARDS) {
            BsonDocument sent = shard.peer.received("find").getFirst();
            assertThat(sent.containsKey("skip")).as("no skip on the shards").isFalse();
            assertThat(sent.getNumber("limit").longValue()).as("limit = skip + limit").isEqualTo(67);
            assertThat(sent.getNumber("batchSize").intValue()).as("batchSize + skip").isEqualTo(15);
            assertThat(sent.containsKey("shardVersion")).as("versioned").isTrue();
        }
        assertThat(SHARDS.stream().mapToInt(s -> s.cursors.size()).sum()).as("every shard cursor was read to its end or closed").isZero();
    }

    @Test
    void anEqualityOnTheShardKeyTargetsOneShardAndARangeItsChunks() throws Exception {
        BsonDocument reply = command("{find: 'c', filter: {x: 42}}");
        assertThat(drain(reply, 100)).isEqualTo(viaJson(matching("{x: 42}").toList()));
        assertThat(shardsThatReceived("find")).containsExactly("s1");
        forget();
        BsonDocument range = command("{find: 'c', filter: {x: {$gte: 50, $lt: 120}}, sort: {x: 1, _id: 1}}");
        assertThat(drain(range, 100)).isEqualTo(viaJson(matching("{x: {$gte: 50, $lt: 120}}")
                .sorted(Sort.parse(ExtendedJson.parse("{x: 1, _id: 1}")).comparator()).toList()));
        assertThat(shardsThatReceived("find")).containsExactly("s1", "s2");
    }

    @Test
    void aProjectionThatDropsTheSortKeyIsAppliedAfterTheMerge() throws Exception {
        BsonDocument reply = command("{find: 'c', sort: {x: -1, _id: 1}, projection: {g: 1, _id: 0}, limit: 40}");
        Projection projection = Projection.parse(ExtendedJson.parse("{g: 1, _id: 0}"));
        List<BsonDocument> expected = ALL.stream().sorted(Sort.parse(ExtendedJson.parse("{x: -1, _id: 1}")).comparator()).limit(40)
                .map(projection::apply).toList();
        assertThat(drain(reply, 7)).isEqualTo(viaJson(expected));
        SHARDS.forEach(s -> assertThat(s.peer.received("find").getFirst().containsKey("projection")).isFalse());
    }

    @Test
    void aProjectionThatCutsArraysIsAppliedToCopiesOfTheShardsRawDocuments() throws Exception {
        // the shards' batches reach the merge as read-only bytes (forwarded): $slice and a positional projection change
        // their result in place, so they must work on copies
        BsonDocument reply = command("{find: 'c', filter: {a: {$gte: 100}}, sort: {x: 1, _id: 1}, projection: {a: {$slice: -1}, x: 1}, limit: 30}");
        Projection slice = Projection.parse(ExtendedJson.parse("{a: {$slice: -1}, x: 1}"));
        List<BsonDocument> expected = matching("{a: {$gte: 100}}").sorted(Sort.parse(ExtendedJson.parse("{x: 1, _id: 1}")).comparator())
                .limit(30).map(slice::apply).toList();
        assertThat(drain(reply, 7)).isEqualTo(viaJson(expected));

        BsonDocument positional = command("{find: 'c', filter: {a: 150}, sort: {x: 1}, projection: {'a.$': 1}}");
        assertThat(drain(positional, 10)).extracting(d -> d.getArray("a")).containsOnly(new BsonArray(List.of(new BsonInt32(150))));
        assertThat(drain(command("{find: 'c', filter: {a: 150}}"), 10)).hasSize(3); // _id 148, 149 and 150
    }

    @Test
    void aSingleBatchWithSkipStillHasItsWholeFirstBatch() throws Exception {
        BsonDocument reply = command("{find: 'c', sort: {_id: 1}, skip: 30, batchSize: 20, singleBatch: true}");
        assertThat(reply.getDocument("cursor").getNumber("id").longValue()).isZero();
        assertThat(reply.getDocument("cursor").getArray("firstBatch").getValues())
                .isEqualTo(new BsonArray(viaJson(ALL.subList(30, 50))).getValues());
        assertThat(SHARDS.stream().mapToInt(s -> s.cursors.size()).sum()).isZero();
    }

    @Test
    void aStaleShardMakesTheFindRetryAndTheCursorsOfTheFirstAttemptAreKilled() throws Exception {
        SHARDS.get(1).staleFinds.set(1);
        BsonDocument reply = command("{find: 'c', sort: {_id: 1}, batchSize: 5}");
        assertThat(drain(reply, 50)).isEqualTo(viaJson(ALL));
        for (StubShard shard : SHARDS) {
            assertThat(shard.peer.received("find")).as(shard.name + " was asked again").hasSize(2);
        }
        assertThat(SHARDS.getFirst().peer.received("killCursors")).as("s0's cursor of the stale attempt").hasSize(1);
        assertThat(SHARDS.stream().mapToInt(s -> s.cursors.size()).sum()).isZero();
    }

    /**
     * A find one shard answers goes back to the client as the shard's reply (its batch forwarded as the shard's bytes):
     * a stale reply still makes it retry, and an open shard cursor is adopted and read to its end with getMore.
     */
    @Test
    void aSingleShardFindIsForwardedRetriedWhenStaleAndItsOpenCursorAdopted() throws Exception {
        SHARDS.get(1).staleFinds.set(1);
        BsonDocument reply = command("{find: 'c', filter: {x: {$gte: 0, $lt: 100}}, sort: {_id: 1}, batchSize: 3}");

        assertThat(reply.getDocument("cursor").getArray("firstBatch")).hasSize(3);
        assertThat(reply.getDocument("cursor").getNumber("id").longValue()).as("the shard cursor, adopted").isNotZero();
        assertThat(drain(reply, 4)).isEqualTo(viaJson(matching("{x: {$gte: 0, $lt: 100}}").toList()));
        assertThat(shardsThatReceived("find")).containsExactly("s1");
        assertThat(SHARDS.get(1).peer.received("find")).as("asked again after StaleConfig").hasSize(2);
        assertThat(SHARDS.stream().mapToInt(sh -> sh.cursors.size()).sum()).isZero();
    }

    @Test
    void killCursorsKillsTheShardCursorsStillOpen() throws Exception {
        BsonDocument reply = command("{find: 'c', batchSize: 2}");
        long id = reply.getDocument("cursor").getNumber("id").longValue();
        assertThat(id).isNotZero();
        assertThat(SHARDS.stream().mapToInt(s -> s.cursors.size()).sum()).isEqualTo(3);
        BsonDocument killed = command("db", new BsonDocument("killCursors", new BsonString("c"))
                .append("cursors", new BsonArray(List.of(new org.bson.BsonInt64(id)))));
        assertThat(killed.getArray("cursorsKilled")).hasSize(1);
        assertThat(SHARDS.stream().mapToInt(s -> s.cursors.size()).sum()).isZero();
        assertThat(shardsThatReceived("killCursors")).containsExactly("s0", "s1", "s2");
    }

    @Test
    void countSumsTheShardsWithSkipAndLimitAppliedOnce() throws Exception {
        long all = matching("{n: {$lt: 5}}").count();
        assertThat(command("{count: 'c', query: {n: {$lt: 5}}}").getNumber("n").longValue()).isEqualTo(all);
        assertThat(command("{count: 'c', query: {n: {$lt: 5}}, skip: 20, limit: 50}").getNumber("n").longValue())
                .isEqualTo(Math.max(0, Math.min(all - 20, 50)));
        assertThat(command("{count: 'c', skip: 1000}").getNumber("n").longValue()).isZero();
        assertThat(command("{count: 'c', query: {x: {$lt: 0}}}").getNumber("n").longValue()).isEqualTo(matching("{x: {$lt: 0}}").count());
    }

    @Test
    void distinctIsTheUnionOfTheShardsValues() throws Exception {
        DistinctValues expected = new DistinctValues("n");
        matching("{g: 'a'}").forEach(expected::add);
        assertThat(command("{distinct: 'c', key: 'n', query: {g: 'a'}}").getArray("values").getValues())
                .isEqualTo(new BsonArray(expected.values()).getValues());
    }

    @Test
    void anAggregateIsSplitAndMerged() throws Exception {
        String pipeline = "[{$match: {x: {$gte: -20}}}, {$group: {_id: '$g', total: {$sum: '$n'}, avg: {$avg: '$n'}, c: {$count: {}}}}, {$sort: {_id: 1}}]";
        BsonDocument reply = command("{aggregate: 'c', pipeline: " + pipeline + ", cursor: {batchSize: 1}}");
        Pipeline whole = Pipeline.parse(ExtendedJson.parse("{p: " + pipeline + "}").getArray("p"), (c, f) -> List.of());
        List<BsonDocument> expected = whole.run(ALL.stream().filter(whole.scanFilter()::matches).toList());
        assertThat(drain(reply, 1)).isEqualTo(viaJson(expected));
        BsonArray sent = SHARDS.getFirst().peer.received("aggregate").getFirst().getArray("pipeline");
        assertThat(sent.get(1).asDocument().getDocument("$group")).containsKey("__avgCount_avg");
    }

    @Test
    void aSortedAggregateWithALimitIsMergeSorted() throws Exception {
        String pipeline = "[{$sort: {x: -1, _id: 1}}, {$skip: 5}, {$limit: 30}, {$project: {x: 1}}]";
        BsonDocument reply = command("{aggregate: 'c', pipeline: " + pipeline + ", cursor: {}}");
        Pipeline whole = Pipeline.parse(ExtendedJson.parse("{p: " + pipeline + "}").getArray("p"), (c, f) -> List.of());
        assertThat(drain(reply, 10)).isEqualTo(viaJson(whole.run(ALL)));
        assertThat(SHARDS.get(2).peer.received("aggregate").getFirst().getArray("pipeline").get(1))
                .isEqualTo(ExtendedJson.parse("{$limit: {$numberLong: '35'}}"));
    }

    @Test
    void aLookupOfTheMergePartReadsTheForeignCollectionThroughTheRouter() throws Exception {
        String pipeline = "[{$group: {_id: '$g', c: {$sum: 1}}}, {$lookup: {from: 'u', localField: '_id', foreignField: '_id', as: 'u'}},"
                + " {$sort: {_id: 1}}]";
        BsonDocument reply = command("{aggregate: 'c', pipeline: " + pipeline + ", cursor: {}}");
        Pipeline whole = Pipeline.parse(ExtendedJson.parse("{p: " + pipeline + "}").getArray("p"),
                (c, f) -> c.equals("u") ? U.stream().filter(f::matches).toList() : List.of());
        assertThat(drain(reply, 10)).isEqualTo(viaJson(whole.run(ALL)));
    }

    @Test
    void explainShowsTheShardsAndTheMergeStage() throws Exception {
        BsonDocument merged = command("{explain: {find: 'c', filter: {x: {$gt: 10}}, sort: {x: 1}}, verbosity: 'executionStats'}");
        BsonDocument plan = merged.getDocument("queryPlanner").getDocument("winningPlan");
        assertThat(plan.getString("stage").getValue()).isEqualTo("SHARD_MERGE_SORT");
        assertThat(plan.getArray("shards").stream().map(s -> s.asDocument().getString("shardName").getValue())).containsExactly("s1", "s2");
        assertThat(merged.getDocument("executionStats").getNumber("nReturned").longValue()).isEqualTo(matching("{x: {$gt: 10}}").count());
        BsonDocument single = command("{explain: {count: 'c', query: {x: -3}}}");
        assertThat(single.getDocument("queryPlanner").getDocument("winningPlan").getString("stage").getValue()).isEqualTo("SINGLE_SHARD");
        BsonDocument aggregate = command("{explain: {aggregate: 'c', pipeline: [{$group: {_id: '$g', c: {$sum: 1}}}], cursor: {}}}");
        assertThat(aggregate.getString("mergeType").getValue()).isEqualTo("mongos");
        assertThat(aggregate.getDocument("shards").keySet()).containsExactly("s0", "s1", "s2");
    }

    /**
     * An update or delete statement's own collation decides where its explain goes, as it decides where the write goes:
     * a string condition on the shard key under a non-simple collation narrows nothing; a number still pins its shard,
     * whatever strings other fields compare.
     */
    @Test
    void explainOfAWriteIsTargetedUnderItsStatementsCollation() throws Exception {
        String caseless = "collation: {locale: 'en', strength: 2}";
        command("{explain: {delete: 'c', deletes: [{q: {x: {$in: [42, 'a']}}, limit: 0}]}}");
        List<String> binary = shardsThatReceived("explain");
        assertThat(binary).hasSizeLessThan(3);
        forget();
        command("{explain: {delete: 'c', deletes: [{q: {x: {$in: [42, 'a']}}, limit: 0, " + caseless + "}]}}");
        assertThat(shardsThatReceived("explain")).containsExactly("s0", "s1", "s2");
        forget();
        command("{explain: {update: 'c', updates: [{q: {x: 42, g: 'a'}, u: {$set: {a: 1}}, " + caseless + "}]}}");
        assertThat(shardsThatReceived("explain")).containsExactly("s1");
    }

    /**
     * An aggregate on a config collection (mongosh's {@code sh.status()} sends several) runs on the router over the
     * config service's find: the leading {@code $match} goes to the config service as the find's filter and is applied
     * again on the router (this stub config service ignores filters).
     */
    @Test
    void anAggregateOnAConfigCollectionRunsOnTheRouterOverTheConfigServicesFind() throws Exception {
        BsonDocument reply = command("config", ExtendedJson.parse("{aggregate: 'collections', pipeline: [{$match: {_id: 'db.c'}},"
                + " {$group: {_id: null, n: {$sum: 1}}}, {$project: {_id: 0, n: 1}}], cursor: {}}"));
        assertThat(reply.getDocument("cursor").getArray("firstBatch")).containsExactly(ExtendedJson.parse("{n: 1}"));
        assertThat(reply.getDocument("cursor").getString("ns").getValue()).isEqualTo("config.collections");
        BsonDocument none = command("config", ExtendedJson.parse("{aggregate: 'collections', pipeline: [{$match: {_id: 'other'}}], cursor: {}}"));
        assertThat(none.getDocument("cursor").getArray("firstBatch")).isEmpty();
        assertThat(CONFIG.received("find")).anyMatch(find -> find.getString("find").getValue().equals("collections")
                && ExtendedJson.parse("{_id: 'other'}").equals(find.get("filter")));
        assertThat(refusal("config", "{aggregate: 'chunks', pipeline: [], explain: true}")).isEqualTo(ErrorCode.NotImplemented.code());
        assertThat(refusal("config", "{aggregate: 'chunks', pipeline: [{$out: 'x'}], cursor: {}}")).isEqualTo(ErrorCode.NotImplemented.code());
        assertThat(refusal("config", "{aggregate: 'chunks', pipeline: [{$frob: {}}], cursor: {}}")).isEqualTo(ErrorCode.Location40324.code());
        assertThat(CONFIG.received("find")).as("a pipeline that does not parse reads nothing")
                .noneMatch(find -> find.getString("find").getValue().equals("chunks"));
    }

    @Test
    void shardedDataDistributionIsOnlyTheFirstStageOfAnAdminAggregate() throws Exception {
        assertThat(refusal("db", "{aggregate: 1, pipeline: [{$shardedDataDistribution: {}}], cursor: {}}"))
                .isEqualTo(ErrorCode.InvalidNamespace.code());
        assertThat(refusal("admin", "{aggregate: 1, pipeline: [{$match: {}}, {$shardedDataDistribution: {}}], cursor: {}}"))
                .isEqualTo(ErrorCode.BadValue.code());
        assertThat(refusal("admin", "{aggregate: 1, pipeline: [{$shardedDataDistribution: {x: 1}}], cursor: {}}"))
                .isEqualTo(ErrorCode.FailedToParse.code());
    }

    /**
     * {@code $expr} says nothing about where the shard key is, so it never narrows targeting (an equality beside it
     * still does), and {@code let} goes to the shards with the command.
     */
    @Test
    void anExprNeverNarrowsTargetingAndLetGoesToTheShards() throws Exception {
        BsonDocument reply = command("{find: 'c', filter: {$expr: {$eq: ['$x', '$$v']}}, let: {v: 42}, sort: {_id: 1}}");
        assertThat(drain(reply, 100)).isEqualTo(viaJson(matching("{x: 42}").toList()));
        assertThat(shardsThatReceived("find")).containsExactly("s0", "s1", "s2");
        SHARDS.forEach(s -> assertThat(s.peer.received("find").getFirst().getDocument("let")).isEqualTo(ExtendedJson.parse("{v: 42}")));
        forget();
        command("{find: 'c', filter: {x: 42, $expr: {$gt: ['$n', '$$min']}}, let: {min: 3}}");
        assertThat(shardsThatReceived("find")).containsExactly("s1");
        forget();
        assertThat(command("{count: 'c', query: {$expr: {$lt: ['$x', 0]}}}").getNumber("n").longValue())
                .isEqualTo(matching("{x: {$lt: 0}}").count());
        assertThat(shardsThatReceived("count")).containsExactly("s0", "s1", "s2");
    }

    /** The router's merge stages see the command's {@code let} too. */
    @Test
    void anAggregatesMergeStagesSeeLet() throws Exception {
        String pipeline = "[{$match: {$expr: {$gte: ['$x', '$$low']}}}, {$group: {_id: '$g', c: {$count: {}}}}, {$sort: {_id: 1}},"
                + " {$set: {tag: '$$tag', big: {$gt: ['$c', '$$low']}}}]";
        BsonDocument reply = command("{aggregate: 'c', pipeline: " + pipeline + ", cursor: {}, let: {low: 10, tag: 'merged'}}");
        Pipeline whole = Pipeline.parse(ExtendedJson.parse("{p: " + pipeline + "}").getArray("p"), (c, f) -> List.of(),
                CommandVariables.parse(ExtendedJson.parse("{low: 10, tag: 'merged'}"), "let"));
        List<BsonDocument> expected = whole.run(ALL.stream().filter(whole.scanFilter()::matches).toList());
        assertThat(drain(reply, 100)).isEqualTo(viaJson(expected));
        assertThat(expected).allSatisfy(d -> assertThat(d.getString("tag").getValue()).isEqualTo("merged"));
        assertThat(shardsThatReceived("aggregate")).containsExactly("s0", "s1", "s2");
        SHARDS.forEach(s -> assertThat(s.peer.received("aggregate").getFirst().containsKey("let")).isTrue());
    }

    /**
     * An aggregate's collation (MongoDB manual, "Collation") goes to the shards with the command and rules the router's
     * part too: the merge sort of the shards' sorted streams and the final {@code $group} of the partial groups compare
     * strings under it, so the sharded answer is the one the whole pipeline gives over all the documents. Half the
     * {@code g} values are upper-cased first, so strength 2 folds them back into three groups.
     */
    @Test
    void anAggregatesCollationRulesTheShardsAndTheMerge() throws Exception {
        String caseless = "{locale: 'en', strength: 2}";
        String mixCase = "{$set: {g: {$cond: [{$lt: ['$n', 5]}, {$toUpper: '$g'}, '$g']}}}";
        String grouped = "[" + mixCase + ", {$group: {_id: '$g', c: {$sum: 1}, lo: {$min: '$n'}}}, {$set: {_id: {$toLower: '$_id'}}}, {$sort: {_id: 1}}]";
        String sorted = "[" + mixCase + ", {$sort: {g: -1, _id: 1}}, {$project: {g: 1}}]";
        for (String pipeline : List.of(grouped, sorted)) {
            forget();
            BsonDocument reply = command("{aggregate: 'c', pipeline: " + pipeline + ", cursor: {batchSize: 7}, collation: " + caseless + "}");
            CommandVariables variables = CommandVariables.ofCommand(ExtendedJson.parse("{aggregate: 'c', collation: " + caseless + "}"));
            Pipeline whole = Pipeline.parse(ExtendedJson.parse("{p: " + pipeline + "}").getArray("p"), (c, f) -> List.of(), variables);
            assertThat(drain(reply, 7)).as(pipeline).isEqualTo(viaJson(whole.run(ALL)));
            assertThat(shardsThatReceived("aggregate")).containsExactly("s0", "s1", "s2");
            SHARDS.forEach(s -> assertThat(s.peer.received("aggregate").getFirst().getDocument("collation"))
                    .isEqualTo(ExtendedJson.parse(caseless)));
        }
        assertThat(drain(command("{aggregate: 'c', pipeline: " + grouped + ", cursor: {}, collation: " + caseless + "}"), 100)).hasSize(3);
        assertThat(drain(command("{aggregate: 'c', pipeline: " + grouped + ", cursor: {}}"), 100)).hasSize(6);
    }

    /** A string condition on the shard key targets by binary order: under a non-simple collation it goes everywhere, as find's. */
    @Test
    void aStringShardKeyConditionUnderACollationTargetsEveryShard() throws Exception {
        command("{aggregate: 'c', pipeline: [{$match: {x: 'q'}}], cursor: {}}");
        assertThat(shardsThatReceived("aggregate")).containsExactly("s2");
        forget();
        command("{aggregate: 'c', pipeline: [{$match: {x: 'q'}}], cursor: {}, collation: {locale: 'en', strength: 1}}");
        assertThat(shardsThatReceived("aggregate")).containsExactly("s0", "s1", "s2");
        forget();
        command("{aggregate: 'c', pipeline: [{$match: {x: 42}}], cursor: {}, collation: {locale: 'en', strength: 1}}");
        assertThat(shardsThatReceived("aggregate")).containsExactly("s1");
    }

    @Test
    void badLetAndRefusedOptionsAreRefusedBeforeAnyShardIsAsked() throws Exception {
        assertThat(refusal("db", "{find: 'c', let: {Upper: 1}}")).isEqualTo(ErrorCode.BadValue.code());
        for (String notImplemented : List.of("{aggregate: 'c', pipeline: [{$set: {a: '$$CLUSTER_TIME'}}], cursor: {}}",
                "{aggregate: 'c', pipeline: [{$merge: {into: 'out'}}], cursor: {}, collation: {locale: 'fr'}}")) {
            HttpResponse<String> response = post("db", ExtendedJson.parse(notImplemented));
            assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
            assertThat(ExtendedJson.parse(response.body()).getInt32("code").getValue()).isEqualTo(ErrorCode.NotImplemented.code());
        }
        assertThat(refusal("db", "{count: 'c', frobnicate: 1}")).isEqualTo(ErrorCode.Location40415.code());
        assertThat(SHARDS.stream().mapToInt(s -> s.peer.received.size()).sum()).isZero();
    }

    @Test
    void badReadOptionsAreRefusedBeforeAnyShardIsAsked() throws Exception {
        assertThat(refusal("db", "{find: 'c', skip: -1}")).isEqualTo(ErrorCode.BadValue.code());
        assertThat(refusal("db", "{find: 'c', sort: {x: 2}}")).isEqualTo(ErrorCode.BadValue.code());
        assertThat(refusal("db", "{aggregate: 'c', pipeline: [{$frobnicate: {}}], cursor: {}}")).isEqualTo(ErrorCode.Location40324.code());
        assertThat(refusal("db", "{aggregate: 'c', pipeline: []}")).isEqualTo(ErrorCode.FailedToParse.code());
        assertThat(refusal("db", "{getMore: {$numberLong: '12345'}, collection: 'c'}")).isEqualTo(ErrorCode.CursorNotFound.code());
        assertThat(SHARDS.stream().mapToInt(s -> s.peer.received.size()).sum()).isZero();
    }

    @Test
    void shardedDataDistributionReportsEachShardOwningChunksOrStillHoldingOrphans() throws Exception {
        BsonDocument reply = command("admin", ExtendedJson.parse(
                "{aggregate: 1, pipeline: [{$shardedDataDistribution: {}}, {$match: {ns: 'db.c'}}], cursor: {}}"));
        List<BsonValue> batch = reply.getDocument("cursor").getArray("firstBatch").getValues();
        assertThat(batch).hasSize(1);
        BsonDocument doc = batch.getFirst().asDocument();
        assertThat(doc.getString("ns").getValue()).isEqualTo("db.c");
        BsonArray shards = doc.getArray("shards");
        assertThat(shards).hasSize(4);
        BsonDocument former = shards.get(3).asDocument();
        assertThat(former.getString("shardName").getValue()).isEqualTo("s3");
        assertThat(former.getNumber("numOwnedDocuments").longValue()).isZero();
        assertThat(former.getNumber("numOrphanedDocs").longValue()).isEqualTo(7);
        for (int i = 0; i < 3; i++) {
            BsonDocument entry = shards.get(i).asDocument();
            assertThat(entry.getString("shardName").getValue()).isEqualTo("s" + i);
            assertThat(entry.getNumber("numOwnedDocuments").longValue()).isEqualTo(SHARDS.get(i).documents.size());
            assertThat(entry.keySet()).containsExactlyInAnyOrder("shardName", "numOrphanedDocs", "numOwnedDocuments", "ownedSizeBytes", "orphanedSizeBytes");
        }
    }
}
