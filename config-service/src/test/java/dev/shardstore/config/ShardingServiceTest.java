package dev.shardstore.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.config.outbox.OutboxRelay;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.timeseries.Granularity;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.support.failpoint.FailPointAction;
import dev.shardstore.support.failpoint.FailPoints;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.UuidRepresentation;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.json.JsonMapper;

/**
 * The config service's half of sharded collections (docs/sharding-protocol.md) against a real embedded PostgreSQL and
 * Kafka broker, over its real internal HTTP endpoint; the shards are three {@link StubShard}s. New databases land on
 * shA, the shard with the least data. Each test uses its own namespaces.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ShardingServiceTest {
    private static final StubShard A = new StubShard("shA", 1_000);
    private static final StubShard B = new StubShard("shB", 2_000);
    private static final StubShard C = new StubShard("shC", 3_000);
    private static final BsonDocument X = new BsonDocument("x", new BsonInt32(1));

    @LocalServerPort
    int port;

    @Autowired
    OutboxRelay relay;

    @Autowired
    JsonMapper json;

    @Autowired
    FailPoints failPoints;

    @Autowired
    JdbcClient jdbc;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(20));

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("config_sharding_test").forEach((k, v) -> registry.add(k, () -> v));
        registry.add("shardstore.sharding.ddl-retry-interval", () -> "200ms");
    }

    @AfterAll
    static void stopStubs() {
        A.close();
        B.close();
        C.close();
    }

    @BeforeEach
    void registerShards() {
        for (StubShard s : List.of(A, B, C)) {
            s.reset();
            run(new BsonDocument("addShard", new BsonString(s.url())));
        }
    }

    // --- helpers ---

    private BsonDocument run(BsonDocument command) {
        return client.runChecked("config", "http://localhost:" + port, "admin", command);
    }

    private CommandException refused(BsonDocument command) {
        try {
            run(command);
        } catch (CommandException e) {
            return e;
        }
        throw new AssertionError("expected " + command.toJson() + " to be refused");
    }

    private record Routing(@Nullable ShardedCollection collection, List<Chunk> chunks, List<BsonDocument> docs, boolean full) {
        RoutingTable table() {
            return RoutingTable.of(collection, chunks);
        }
    }

    private Routing routing(String ns, @Nullable ChunkVersion since) {
        BsonDocument command = new BsonDocument("_configsvrGetRoutingTable", new BsonString(ns));
        if (since != null) {
            command.append("sinceVersion", since.toBson());
        }
        BsonDocument reply = run(command);
        List<BsonDocument> docs = reply.getArray("chunks").stream().map(BsonValue::asDocument).toList();
        return new Routing(reply.get("collection").isNull() ? null : ShardedCollection.fromBson(reply.getDocument("collection")),
                docs.stream().map(Chunk::fromBson).toList(), docs, reply.getBoolean("full").getValue());
    }

    private Routing routing(String ns) {
        return routing(ns, null);
    }

    private BsonDocument shardCollection(String ns, BsonDocument key) {
        return run(new BsonDocument("_configsvrShardCollection", new BsonString(ns)).append("key", key));
    }

    /** Shards {@code ns} on {x: 1} with the primary reporting these split keys for a non-empty collection. */
    private Routing shardRanged(String ns, int... splitKeys) {
        BsonArray keys = new BsonArray();
        for (int k : splitKeys) {
            keys.add(x(k));
        }
        A.answer("_shardsvrPrepareShardCollection", cmd -> Replies.ok(new BsonDocument("empty", BsonBoolean.FALSE)
                .append("count", new BsonInt64(1000)).append("splitKeys", keys)));
        shardCollection(ns, X);
        return routing(ns);
    }

    private static BsonDocument x(long v) {
        return new BsonDocument("x", new BsonInt64(v));
    }

    private static BsonDocument commit(String command, ShardedCollection c) {
        return new BsonDocument(command, new BsonString(c.namespace()))
                .append("collEpoch", new BsonObjectId(c.epoch()))
                .append("collTimestamp", c.timestamp());
    }

    private static BsonDocument split(ShardedCollection c, Chunk chunk, BsonDocument... points) {
        return commit("_configsvrCommitChunkSplit", c)
                .append("min", chunk.range().min()).append("max", chunk.range().max())
                .append("splitPoints", new BsonArray(List.of(points)))
                .append("shard", new BsonString(chunk.shard()));
    }

    private static BsonDocument merge(ShardedCollection c, BsonDocument min, BsonDocument max, String shard) {
        return commit("_configsvrCommitChunksMerge", c)
                .append("chunkRange", new BsonDocument("min", min).append("max", max))
                .append("shard", new BsonString(shard));
    }

    private static BsonDocument migrate(ShardedCollection c, Chunk chunk, String to) {
        return commit("_configsvrCommitChunkMigration", c)
                .append("migratedChunk", chunk.range().toBson())
                .append("fromShard", new BsonString(chunk.shard()))
                .append("toShard", new BsonString(to));
    }

    private static Chunk chunkAt(Routing r, BsonDocument min) {
        return r.chunks().stream().filter(c -> c.range().min().equals(min)).findFirst().orElseThrow();
    }

    private static ChunkVersion v(ShardedCollection c, int major, int minor) {
        return new ChunkVersion(major, minor, c.epoch(), c.timestamp());
    }

    // --- shardCollection ---

    @Test
    void anEmptyHashedCollectionIsSpreadEvenlyOverTheShardsRoundRobin() {
        BsonDocument reply = run(new BsonDocument("_configsvrShardCollection", new BsonString("hashdb.users"))
                .append("key", new BsonDocument("_id", ShardKeyPattern.hashedValue())).append("numInitialChunks", new BsonInt32(6)));
        assertThat(reply.getString("collectionsharded").getValue()).isEqualTo("hashdb.users");

        Routing r = routing("hashdb.users");
        assertThat(r.collection().uuid()).isEqualTo(reply.getBinary("collectionUUID").asUuid(UuidRepresentation.STANDARD));
        assertThat(r.full()).isTrue();
        assertThat(r.chunks()).extracting(Chunk::shard).containsExactly("shA", "shB", "shC", "shA", "shB", "shC");
        List<ChunkVersion> versions = r.chunks().stream().map(Chunk::lastmod).toList();
        for (int i = 0; i < versions.size(); i++) {
            assertThat(versions.get(i)).isEqualTo(v(r.collection(), 1, i));
        }
        List<Long> mins = r.chunks().stream().skip(1).map(c -> c.range().min().getInt64("_id").getValue()).toList();
        for (int i = 1; i < mins.size(); i++) {
            assertThat(mins.get(i) - mins.get(i - 1)).isEqualTo(Long.MAX_VALUE / 6 * 2);
        }
        assertThat(r.table().collectionVersion()).isEqualTo(v(r.collection(), 1, 5));

        // the primary prepared the collection under the database version the catalog has
        BsonDocument prepare = A.received("_shardsvrPrepareShardCollection").getFirst();
        assertThat(prepare.getString("_shardsvrPrepareShardCollection").getValue()).isEqualTo("users");
        assertThat(prepare.getDocument("key")).isEqualTo(new BsonDocument("_id", ShardKeyPattern.hashedValue()));
        assertThat(prepare.getNumber("maxChunkSizeBytes").longValue()).isEqualTo(128L * 1024 * 1024);
        assertThat(prepare.getBoolean("unique").getValue()).isFalse();
        BsonDocument database = run(new BsonDocument("_configsvrGetDatabase", new BsonString("hashdb"))).getDocument("database");
        assertThat(prepare.getDocument("databaseVersion")).isEqualTo(database.getDocument("version"));
        assertThat(A.received).contains("_shardsvrPrepareShardCollection hashdb");
        // the other shards that received chunks created the collection and its shard key index, without a database version
        for (StubShard s : List.of(B, C)) {
            assertThat(s.received("_shardsvrPrepareShardCollection")).singleElement()
                    .satisfies(c -> assertThat(c.containsKey("databaseVersion")).isFalse());
        }
        for (StubShard s : List.of(A, B, C)) {
            assertThat(s.received("_shardsvrRefreshCollection")).extracting(c -> c.getString("_shardsvrRefreshCollection").getValue())
                    .containsExactly("hashdb.users");
        }
    }

    @Test
    void theDefaultIsTwoInitialChunksPerShard() {
        shardCollection("hashdb.defaults", new BsonDocument("_id", ShardKeyPattern.hashedValue()));
        assertThat(routing("hashdb.defaults").chunks()).hasSize(6);
    }

    @Test
    void aNonEmptyRangedCollectionGetsOneChunkPerSplitKeyAllOnThePrimary() {
        Routing r = shardRanged("rangedb.orders", 10, 20);
        assertThat(r.chunks()).extracting(c -> c.range().min())
                .containsExactly(new BsonDocument("x", new BsonMinKey()), x(10), x(20));
        assertThat(r.chunks()).extracting(Chunk::shard).containsOnly("shA");
        assertThat(r.chunks()).extracting(Chunk::lastmod).containsExactly(v(r.collection(), 1, 0), v(r.collection(), 1, 1),
                v(r.collection(), 1, 2));
        assertThat(A.received("_shardsvrRefreshCollection")).hasSize(1);
        assertThat(B.received("_shardsvrRefreshCollection")).isEmpty();
    }

    @Test
    void aCompoundKeyIsShardedWithCompoundBounds() {
        BsonDocument key = new BsonDocument("country", new BsonInt32(1)).append("name", new BsonInt32(1));
        BsonDocument splitKey = new BsonDocument("country", new BsonString("FR")).append("name", new BsonString("Paris"));
        A.answer("_shardsvrPrepareShardCollection", cmd -> Replies.ok(new BsonDocument("empty", BsonBoolean.FALSE)
                .append("count", new BsonInt64(5)).append("splitKeys", new BsonArray(List.of(splitKey)))));
        shardCollection("geo.cities", key);
        Routing r = routing("geo.cities");
        assertThat(r.collection().key().pattern()).isEqualTo(key);
        assertThat(r.chunks()).hasSize(2);
        assertThat(r.chunks().get(1).range().min()).isEqualTo(splitKey);
        assertThat(r.table().chunkFor(new BsonDocument("country", new BsonString("FR")).append("name", new BsonString("Lyon"))))
                .isEqualTo(r.chunks().get(0));
    }

    @Test
    void shardingAgainWithTheSameKeyIsANoOpAndWithAnotherKeyIsAlreadyInitialized() {
        BsonDocument first = shardCollection("againdb.c", X);
        BsonDocument second = shardCollection("againdb.c", new BsonDocument("x", new BsonDouble(1)));
        assertThat(second.getBinary("collectionUUID")).isEqualTo(first.getBinary("collectionUUID"));
        assertThat(A.received("_shardsvrPrepareShardCollection")).hasSize(1);
        CommandException e = refused(new BsonDocument("_configsvrShardCollection", new BsonString("againdb.c"))
                .append("key", new BsonDocument("y", new BsonInt32(1))));
        assertThat(e.code()).isEqualTo(ErrorCode.AlreadyInitialized);
        assertThat(e.getMessage()).contains("\"x\"").contains("\"y\"");
    }

    @Test
    void aTimeseriesNamespaceIsShardedAsItsBucketsCollectionWithTheTranslatedKeyAndTimeseriesFields() {
        BsonDocument fields = BsonDocument.parse("{timeField: 't', metaField: 'm', granularity: 'hours', bucketMaxSpanSeconds: 2592000}");
        A.answer("_shardsvrPrepareShardCollection", cmd -> Replies.ok(new BsonDocument("empty", BsonBoolean.TRUE)
                .append("count", new BsonInt64(0)).append("splitKeys", new BsonArray()).append("timeseriesFields", fields)));
        BsonDocument given = BsonDocument.parse("{timeField: 't', metaField: 'm', granularity: 'hours'}");
        BsonDocument command = new BsonDocument("_configsvrShardCollection", new BsonString("tsdb.weather"))
                .append("key", BsonDocument.parse("{m: 'hashed'}")).append("numInitialChunks", new BsonInt32(3)).append("timeseries", given);

        BsonDocument reply = run(command);

        assertThat(reply.getString("collectionsharded").getValue()).isEqualTo("tsdb.system.buckets.weather");
        Routing r = routing("tsdb.system.buckets.weather");
        assertThat(r.collection().key().pattern()).isEqualTo(BsonDocument.parse("{meta: 'hashed'}"));
        assertThat(r.collection().timeseriesFields().toDocument()).isEqualTo(fields);
        assertThat(r.chunks()).extracting(Chunk::shard).containsExactly("shA", "shB", "shC");
        assertThat(routing("tsdb.weather").collection()).as("the time-series namespace itself has no entry").isNull();
        // the primary got the options as given and the key on the time-series namespace; the others the stored options
        BsonDocument onPrimary = A.received("_shardsvrPrepareShardCollection").getFirst();
        assertThat(onPrimary.getString("_shardsvrPrepareShardCollection").getValue()).isEqualTo("weather");
        assertThat(onPrimary.getDocument("key")).isEqualTo(BsonDocument.parse("{m: 'hashed'}"));
        assertThat(onPrimary.getDocument("timeseries")).isEqualTo(given);
        for (StubShard s : List.of(B, C)) {
            assertThat(s.received("_shardsvrPrepareShardCollection")).singleElement()
                    .satisfies(c -> assertThat(c.getDocument("timeseries")).isEqualTo(fields));
        }
        for (StubShard s : List.of(A, B, C)) {
            assertThat(s.received("_shardsvrRefreshCollection")).extracting(c -> c.getString("_shardsvrRefreshCollection").getValue())
                    .containsExactly("tsdb.system.buckets.weather");
        }

        // again: the same key is a no-op, another key AlreadyInitialized, other options InvalidOptions naming them
        command.remove("numInitialChunks");
        assertThat(run(command).getBinary("collectionUUID")).isEqualTo(reply.getBinary("collectionUUID"));
        assertThat(A.received("_shardsvrPrepareShardCollection")).hasSize(1);
        assertThat(refused(command.clone().append("key", BsonDocument.parse("{m: 1}"))).code()).isEqualTo(ErrorCode.AlreadyInitialized);
        CommandException otherOptions = refused(command.clone().append("timeseries", BsonDocument.parse("{timeField: 't'}")));
        assertThat(otherOptions.code()).isEqualTo(ErrorCode.InvalidOptions);
        assertThat(otherOptions.getMessage()).contains("timeseries");
    }

    @Test
    void collModOfATimeseriesBucketingUpdatesTimeseriesFieldsAndBumpsEveryOwningShardsVersion() {
        BsonDocument fields = BsonDocument.parse("{timeField: 't', metaField: 'm', granularity: 'seconds', bucketMaxSpanSeconds: 3600}");
        A.answer("_shardsvrPrepareShardCollection", cmd -> Replies.ok(new BsonDocument("empty", BsonBoolean.TRUE)
                .append("count", new BsonInt64(0)).append("splitKeys", new BsonArray()).append("timeseriesFields", fields)));
        run(new BsonDocument("_configsvrShardCollection", new BsonString("tsmod.weather")).append("key", BsonDocument.parse("{m: 'hashed'}"))
                .append("numInitialChunks", new BsonInt32(3)).append("timeseries", BsonDocument.parse("{timeField: 't', metaField: 'm'}")));
        String buckets = "tsmod.system.buckets.weather";
        Routing before = routing(buckets);
        ChunkVersion versionBefore = before.table().collectionVersion();

        BsonDocument reply = run(new BsonDocument("_configsvrCollMod", new BsonString(buckets))
                .append("timeseries", BsonDocument.parse("{granularity: 'hours'}")));

        assertThat(ShardedCollection.fromBson(reply.getDocument("collection")).timeseriesFields().granularity()).isEqualTo(Granularity.HOURS);
        Routing after = routing(buckets);
        assertThat(after.collection().timeseriesFields()).isEqualTo(TimeseriesOptions.of("t", "m", Granularity.HOURS));
        assertThat(after.collection().epoch()).isEqualTo(before.collection().epoch());
        // one chunk per owning shard got a new major version: every shard's version moved past the old collection version
        Routing incremental = routing(buckets, versionBefore);
        assertThat(incremental.full()).isFalse();
        assertThat(incremental.chunks()).extracting(Chunk::shard).containsExactlyInAnyOrder("shA", "shB", "shC");
        assertThat(incremental.chunks()).allSatisfy(c -> assertThat(c.lastmod().major()).isGreaterThan(versionBefore.major()));
        assertThat(after.chunks()).extracting(c -> c.range()).isEqualTo(before.chunks().stream().map(c -> c.range()).toList());

        // a retried collMod changes nothing; a finer granularity or smaller custom bucketing is refused and changes nothing
        ChunkVersion versionAfter = after.table().collectionVersion();
        run(new BsonDocument("_configsvrCollMod", new BsonString(buckets)).append("timeseries", BsonDocument.parse("{granularity: 'hours'}")));
        CommandException finer = refused(new BsonDocument("_configsvrCollMod", new BsonString(buckets))
                .append("timeseries", BsonDocument.parse("{granularity: 'minutes'}")));
        assertThat(finer.code()).isEqualTo(ErrorCode.InvalidOptions);
        assertThat(finer.getMessage()).contains("collMod.timeseries.granularity");
        CommandException smaller = refused(new BsonDocument("_configsvrCollMod", new BsonString(buckets))
                .append("timeseries", BsonDocument.parse("{bucketMaxSpanSeconds: 3600, bucketRoundingSeconds: 3600}")));
        assertThat(smaller.code()).isEqualTo(ErrorCode.InvalidOptions);
        assertThat(routing(buckets).table().collectionVersion()).isEqualTo(versionAfter);
        assertThat(routing(buckets).collection().timeseriesFields().granularity()).isEqualTo(Granularity.HOURS);

        shardRanged("tsmod.plain", 10);
        assertThat(refused(new BsonDocument("_configsvrCollMod", new BsonString("tsmod.plain"))
                .append("timeseries", BsonDocument.parse("{granularity: 'hours'}"))).code()).isEqualTo(ErrorCode.InvalidOptions);
        assertThat(refused(new BsonDocument("_configsvrCollMod", new BsonString("tsmod.never"))
                .append("timeseries", BsonDocument.parse("{granularity: 'hours'}"))).code()).isEqualTo(ErrorCode.NamespaceNotSharded);
    }

    @Test
    void invalidShardCollectionArgumentsAreClientErrorsNamingTheField() {
        for (BsonDocument bad : List.of(new BsonDocument(), new BsonDocument("x", new BsonInt32(-1)),
                new BsonDocument("x", new BsonString("text")))) {
            CommandException e = refused(new BsonDocument("_configsvrShardCollection", new BsonString("baddb.c")).append("key", bad));
            assertThat(e.code()).isEqualTo(ErrorCode.BadValue);
            assertThat(e.getMessage()).contains("key");
        }
        assertThat(refused(new BsonDocument("_configsvrShardCollection", new BsonString("baddb.c"))).getMessage()).contains("key");
        assertThat(refused(new BsonDocument("_configsvrShardCollection", new BsonString("baddb.c")).append("key", new BsonInt32(1))).code())
                .isEqualTo(ErrorCode.TypeMismatch);
        CommandException ranged = refused(new BsonDocument("_configsvrShardCollection", new BsonString("baddb.c")).append("key", X)
                .append("numInitialChunks", new BsonInt32(4)));
        assertThat(ranged.code()).isEqualTo(ErrorCode.InvalidOptions);
        assertThat(ranged.getMessage()).contains("numInitialChunks");
        CommandException tooMany = refused(new BsonDocument("_configsvrShardCollection", new BsonString("baddb.c"))
                .append("key", new BsonDocument("_id", ShardKeyPattern.hashedValue())).append("numInitialChunks", new BsonInt32(8192 * 3 + 1)));
        assertThat(tooMany.code()).isEqualTo(ErrorCode.InvalidOptions);
        assertThat(tooMany.getMessage()).contains("numInitialChunks");
        assertThat(refused(new BsonDocument("_configsvrShardCollection", new BsonString("nodot")).append("key", X)).code())
                .isEqualTo(ErrorCode.InvalidNamespace);
        assertThat(refused(new BsonDocument("_configsvrShardCollection", new BsonString("config.c")).append("key", X)).code())
                .isEqualTo(ErrorCode.InvalidNamespace);
        assertThat(routing("baddb.c").collection()).isNull();
    }

    @Test
    void aPrimaryThatCannotPrepareLeavesTheCatalogUnchanged() {
        A.answer("_shardsvrPrepareShardCollection", cmd -> new CommandException(ErrorCode.InvalidOptions,
                "no index supports the shard key").toReply());
        CommandException e = refused(new BsonDocument("_configsvrShardCollection", new BsonString("noindex.c")).append("key", X));
        assertThat(e.code()).isEqualTo(ErrorCode.InvalidOptions);
        assertThat(routing("noindex.c").collection()).isNull();
    }

    // --- split, migration, merge ---

    @Test
    void splitByMiddleFollowsBothSplitRules() {
        Routing r = shardRanged("splitdb.c", 10);
        ShardedCollection c = r.collection();
        // sv(shA) == cv (1|1): the pieces get (cv.major + 1)|1, |2
        BsonDocument reply = run(new BsonDocument("_configsvrSplitChunk", new BsonString("splitdb.c")).append("middle", x(20)));
        assertThat(ChunkVersion.fromBson(reply.getDocument("collectionVersion"))).isEqualTo(v(c, 2, 2));
        r = routing("splitdb.c");
        assertThat(chunkAt(r, x(10)).lastmod()).isEqualTo(v(c, 2, 1));
        assertThat(chunkAt(r, x(10)).range().max()).isEqualTo(x(20));
        assertThat(chunkAt(r, x(20)).lastmod()).isEqualTo(v(c, 2, 2));

        // move [MinKey, 10) to shB: moved 3|0, the control chunk left on shA 3|1
        Chunk low = r.chunks().getFirst();
        BsonDocument moved = run(migrate(c, low, "shB"));
        assertThat(ChunkVersion.fromBson(moved.getDocument("collectionVersion"))).isEqualTo(v(c, 3, 1));
        assertThat(ChunkVersion.fromBson(moved.getDocument("shardVersion"))).isEqualTo(v(c, 3, 1));
        r = routing("splitdb.c");
        assertThat(r.chunks().getFirst().shard()).isEqualTo("shB");
        assertThat(r.chunks().getFirst().lastmod()).isEqualTo(v(c, 3, 0));
        assertThat(r.docs().getFirst().getArray("history")).hasSize(2);
        assertThat(r.table().shardVersion("shA")).isEqualTo(v(c, 3, 1));

        // sv(shB) = 3|0 < cv = 3|1: the pieces get cv.minor + 1, + 2
        run(new BsonDocument("_configsvrSplitChunk", new BsonString("splitdb.c")).append("middle", x(5)));
        r = routing("splitdb.c");
        assertThat(r.chunks().get(0).lastmod()).isEqualTo(v(c, 3, 2));
        assertThat(r.chunks().get(1).lastmod()).isEqualTo(v(c, 3, 3));
        assertThat(r.chunks().get(1).shard()).isEqualTo("shB");
        assertThat(r.table().size()).isEqualTo(4);
    }

    @Test
    void theShardsWhoseChunksChangedAreToldToRefreshAfterTheCommit() {
        Routing r = shardRanged("refreshdb.c", 10);
        A.reset();
        B.reset();
        run(new BsonDocument("_configsvrSplitChunk", new BsonString("refreshdb.c")).append("middle", x(20)));
        assertThat(A.received("_shardsvrRefreshCollection")).extracting(c -> c.getString("_shardsvrRefreshCollection").getValue())
                .containsExactly("refreshdb.c");
        assertThat(B.received("_shardsvrRefreshCollection")).isEmpty();

        run(migrate(r.collection(), routing("refreshdb.c").chunks().getFirst(), "shB"));
        assertThat(A.received("_shardsvrRefreshCollection")).hasSize(2);
        assertThat(B.received("_shardsvrRefreshCollection")).hasSize(1);
    }

    @Test
    void splitByBoundsOrFindSplitsAtTheMedianTheOwningShardReports() {
        Routing r = shardRanged("mediandb.c", 100);
        A.answer("splitVector", cmd -> Replies.ok(new BsonDocument("splitKeys", new BsonArray(List.of(x(42))))));
        Chunk low = r.chunks().getFirst();
        run(new BsonDocument("_configsvrSplitChunk", new BsonString("mediandb.c"))
                .append("bounds", new BsonArray(List.of(low.range().min(), low.range().max()))));
        BsonDocument asked = A.received("splitVector").getFirst();
        assertThat(asked.getString("splitVector").getValue()).isEqualTo("mediandb.c");
        assertThat(asked.getBoolean("force").getValue()).isTrue();
        assertThat(asked.getDocument("min")).isEqualTo(low.range().min());
        assertThat(asked.getDocument("max")).isEqualTo(x(100));
        assertThat(routing("mediandb.c").chunks()).extracting(c -> c.range().min()).contains(x(42));

        A.answer("splitVector", cmd -> Replies.ok(new BsonDocument("splitKeys", new BsonArray(List.of(x(500))))));
        run(new BsonDocument("_configsvrSplitChunk", new BsonString("mediandb.c")).append("find", new BsonDocument("x", new BsonInt32(700))));
        assertThat(A.received("splitVector").getLast().getDocument("min")).isEqualTo(x(100));
        assertThat(routing("mediandb.c").chunks()).extracting(c -> c.range().min()).contains(x(500));

        A.answer("splitVector", cmd -> Replies.ok(new BsonDocument("splitKeys", new BsonArray())));
        assertThat(refused(new BsonDocument("_configsvrSplitChunk", new BsonString("mediandb.c")).append("find", new BsonDocument("x", new BsonInt32(1))))
                .code()).isEqualTo(ErrorCode.CannotSplit);
        assertThat(refused(new BsonDocument("_configsvrSplitChunk", new BsonString("mediandb.c")).append("bounds",
                new BsonArray(List.of(x(1), x(2))))).getMessage()).contains("bounds");
        assertThat(refused(new BsonDocument("_configsvrSplitChunk", new BsonString("mediandb.c")).append("middle", x(100))).code())
                .isEqualTo(ErrorCode.CannotSplit);
    }

    @Test
    void mergeMakesOneChunkAtTheNextMajorVersion() {
        Routing r = shardRanged("mergedb.c", 10, 20, 30);
        ShardedCollection c = r.collection();
        BsonDocument reply = run(merge(c, x(10), new BsonDocument("x", new BsonMaxKey()), "shA"));
        assertThat(ChunkVersion.fromBson(reply.getDocument("collectionVersion"))).isEqualTo(v(c, 2, 0));
        r = routing("mergedb.c");
        assertThat(r.chunks()).hasSize(2);
        assertThat(r.chunks().get(1).range()).isEqualTo(new ChunkRange(x(10), new BsonDocument("x", new BsonMaxKey())));
        assertThat(r.chunks().get(1).lastmod()).isEqualTo(v(c, 2, 0));
        assertThat(r.docs().get(1).getArray("history")).hasSize(1);
        r.table();
    }

    @Test
    void theBalancerMarksAChunkJumboAndClearJumboFlagClearsItWithoutAVersionChange() {
        Routing r = shardRanged("jumbodb.c", 10, 20);
        ShardedCollection c = r.collection();
        run(new BsonDocument("_configsvrSetJumboFlag", new BsonString("jumbodb.c")).append("min", x(10)));
        Routing marked = routing("jumbodb.c");
        assertThat(chunkAt(marked, x(10)).jumbo()).isTrue();
        assertThat(chunkAt(marked, x(20)).jumbo()).isFalse();
        assertThat(marked.table().collectionVersion()).isEqualTo(r.table().collectionVersion());
        // a jumbo chunk is not moved without forceJumbo
        assertThat(refused(new BsonDocument("_configsvrMoveRange", new BsonString("jumbodb.c")).append("toShard", new BsonString("shB"))
                .append("find", x(15))).code()).isEqualTo(ErrorCode.ChunkTooBig);

        run(new BsonDocument("_configsvrClearJumboFlag", new BsonString("jumbodb.c")).append("find", x(15)));
        assertThat(chunkAt(routing("jumbodb.c"), x(10)).jumbo()).isFalse();
        assertThat(refused(new BsonDocument("_configsvrClearJumboFlag", new BsonString("jumbodb.c"))
                .append("bounds", new BsonArray(List.of(x(10), x(15))))).getMessage()).contains("'bounds'");
        assertThat(refused(new BsonDocument("_configsvrClearJumboFlag", new BsonString("jumbodb.other")).append("find", x(1))).code())
                .isEqualTo(ErrorCode.NamespaceNotSharded);
    }

    @Test
    void migratingAShardsLastChunkLeavesItAtZeroZero() {
        Routing r = shardRanged("lastdb.c");
        ShardedCollection c = r.collection();
        BsonDocument reply = run(migrate(c, r.chunks().getFirst(), "shC"));
        assertThat(ChunkVersion.fromBson(reply.getDocument("shardVersion"))).isEqualTo(v(c, 0, 0));
        assertThat(ChunkVersion.fromBson(reply.getDocument("collectionVersion"))).isEqualTo(v(c, 2, 0));
        Routing after = routing("lastdb.c");
        assertThat(after.table().shards()).containsExactly("shC");
        assertThat(after.docs().getFirst().getArray("history")).extracting(h -> h.asDocument().getString("shard").getValue())
                .containsExactly("shC", "shA");
    }

    @Test
    void aCommitWithTheCurrentExpectedVersionGoesThroughAndMergingOneChunkIsANoOp() {
        Routing r = shardRanged("expectdb.c", 10);
        ShardedCollection c = r.collection();
        run(split(c, r.chunks().get(1), x(20)).append("expectedCollectionVersion", v(c, 1, 1).toBson()));
        Routing split = routing("expectdb.c");
        BsonDocument reply = run(merge(c, x(10), x(20), "shA"));
        assertThat(ChunkVersion.fromBson(reply.getDocument("collectionVersion"))).isEqualTo(v(c, 2, 2));
        assertThat(routing("expectdb.c").docs()).isEqualTo(split.docs());
    }

    @Test
    void refusedCommitsLeaveTheCatalogUnchanged() {
        Routing before = shardRanged("refusedb.c", 10, 20);
        ShardedCollection c = before.collection();
        Chunk middle = before.chunks().get(1);
        run(migrate(c, before.chunks().get(2), "shB"));
        before = routing("refusedb.c");

        ShardedCollection otherEpoch = new ShardedCollection(c.namespace(), c.uuid(), new ObjectId(), c.timestamp(), c.key(), false, false);
        CommandException staleEpoch = refused(split(otherEpoch, middle, x(15)));
        assertThat(staleEpoch.code()).isEqualTo(ErrorCode.StaleEpoch);

        CommandException staleVersion = refused(split(c, middle, x(15)).append("expectedCollectionVersion", v(c, 1, 2).toBson()));
        assertThat(staleVersion.code()).isEqualTo(ErrorCode.StaleConfig);
        assertThat(ChunkVersion.fromBson(staleVersion.extraInfo().getDocument("vReceived"))).isEqualTo(v(c, 1, 2));
        assertThat(ChunkVersion.fromBson(staleVersion.extraInfo().getDocument("vWanted"))).isEqualTo(v(c, 2, 1));

        CommandException notAChunk = refused(commit("_configsvrCommitChunkSplit", c).append("min", x(11)).append("max", x(20))
                .append("splitPoints", new BsonArray(List.of(x(15)))).append("shard", new BsonString("shA")));
        assertThat(notAChunk.code()).isEqualTo(ErrorCode.BadValue);
        assertThat(notAChunk.getMessage()).contains("min/max");

        CommandException outside = refused(split(c, middle, x(15), x(25)));
        assertThat(outside.code()).isEqualTo(ErrorCode.BadValue);
        assertThat(outside.getMessage()).contains("splitPoints.1");

        CommandException wrongShape = refused(split(c, middle, new BsonDocument("y", new BsonInt32(1))));
        assertThat(wrongShape.getMessage()).contains("splitPoints.0");

        CommandException acrossShards = refused(merge(c, x(10), new BsonDocument("x", new BsonMaxKey()), "shA"));
        assertThat(acrossShards.code()).isEqualTo(ErrorCode.BadValue);
        assertThat(acrossShards.getMessage()).contains("chunkRange");

        CommandException unknownShard = refused(migrate(c, middle, "nosuchshard"));
        assertThat(unknownShard.code()).isEqualTo(ErrorCode.ShardNotFound);

        assertThat(routing("refusedb.c").docs()).isEqualTo(before.docs());
    }

    @Test
    void splitCommitsWriteMongoDBsSplitAndMultiSplitChangelogEntries() {
        Routing r = shardRanged("splitlogdb.c", 100);
        ShardedCollection c = r.collection();
        Chunk low = r.chunks().getFirst(); // [MinKey, 100) at 1|0
        run(split(c, low, x(50)));
        List<BsonDocument> entries = findConfig("changelog", new BsonDocument("ns", new BsonString("splitlogdb.c")));
        assertThat(entries).extracting(e -> e.getString("what").getValue()).containsExactly("split");
        BsonDocument details = entries.getFirst().getDocument("details");
        assertThat(details.getDocument("before").getDocument("max")).isEqualTo(x(100));
        assertThat(details.getDocument("before").getDocument("lastmod")).isEqualTo(low.lastmod().toBson());
        assertThat(details.getDocument("left").getDocument("max")).isEqualTo(x(50));
        assertThat(details.getDocument("right").getDocument("min")).isEqualTo(x(50));
        assertThat(details.getString("owningShard").getValue()).isEqualTo(low.shard());

        Chunk upper = chunkAt(routing("splitlogdb.c"), x(50)); // [50, 100)
        run(split(c, upper, x(60), x(70)));
        List<BsonDocument> multi = findConfig("changelog", new BsonDocument("ns", new BsonString("splitlogdb.c"))).stream()
                .filter(e -> e.getString("what").getValue().equals("multi-split")).toList();
        assertThat(multi).hasSize(3).allSatisfy(e -> assertThat(e.getDocument("details").getInt32("of").getValue()).isEqualTo(3));
        assertThat(multi).extracting(e -> e.getDocument("details").getDocument("chunk").getDocument("min"))
                .containsExactlyInAnyOrder(x(50), x(60), x(70));
    }

    @Test
    void concurrentSplitsOfOneChunkCommitExactlyOnce() throws Exception {
        Routing r = shardRanged("racedb.c", 100);
        ShardedCollection c = r.collection();
        Chunk low = r.chunks().getFirst();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CountDownLatch start = new CountDownLatch(1);
        List<Callable<String>> splits = new ArrayList<>();
        for (int point : new int[] {30, 60}) {
            splits.add(() -> {
                start.await();
                try {
                    run(split(c, low, x(point)));
                    return "ok";
                } catch (CommandException e) {
                    return e.code().name();
                }
            });
        }
        List<Future<String>> outcomes = splits.stream().map(pool::submit).toList();
        start.countDown();
        List<String> results = new ArrayList<>();
        for (Future<String> f : outcomes) {
            results.add(f.get());
        }
        pool.shutdown();
        assertThat(results).containsExactlyInAnyOrder("ok", "BadValue");
        Routing after = routing("racedb.c");
        assertThat(after.chunks()).hasSize(3);
        assertThat(after.table().collectionVersion()).isEqualTo(v(c, 2, 2));
    }

    // --- routing tables, refine, drop, find, events ---

    @Test
    void anIncrementalRoutingTableHasExactlyTheNewerChunks() {
        Routing r = shardRanged("incdb.c", 10, 20);
        ChunkVersion before = r.table().collectionVersion();
        run(split(r.collection(), r.chunks().get(1), x(15)));
        Routing incremental = routing("incdb.c", before);
        assertThat(incremental.full()).isFalse();
        assertThat(incremental.chunks()).extracting(c -> c.range().min()).containsExactly(x(10), x(15));
        assertThat(r.table().withChanges(incremental.chunks()).chunks()).isEqualTo(routing("incdb.c").chunks());

        Routing otherEpoch = routing("incdb.c", new ChunkVersion(1, 0, new ObjectId(), new BsonTimestamp(1, 1)));
        assertThat(otherEpoch.full()).isTrue();
        assertThat(otherEpoch.chunks()).hasSize(4);
        assertThat(routing("incdb.never").collection()).isNull();
    }

    @Test
    void refiningTheShardKeyExtendsTheBoundsUnderANewEpoch() {
        Routing r = shardRanged("refinedb.c", 10);
        ShardedCollection before = r.collection();
        BsonDocument newKey = new BsonDocument("x", new BsonInt32(1)).append("y", new BsonInt32(1));
        run(new BsonDocument("_configsvrRefineCollectionShardKey", new BsonString("refinedb.c")).append("key", newKey));
        Routing after = routing("refinedb.c");
        assertThat(after.collection().epoch()).isNotEqualTo(before.epoch());
        assertThat(after.collection().uuid()).isEqualTo(before.uuid());
        assertThat(after.collection().key().pattern()).isEqualTo(newKey);
        assertThat(after.chunks()).extracting(c -> c.range().min()).containsExactly(
                new BsonDocument("x", new BsonMinKey()).append("y", new BsonMinKey()), x(10).append("y", new BsonMinKey()));
        assertThat(after.chunks().getLast().range().max()).isEqualTo(new BsonDocument("x", new BsonMaxKey()).append("y", new BsonMaxKey()));
        assertThat(after.chunks()).extracting(c -> c.lastmod().major() + "|" + c.lastmod().minor()).containsExactly("1|0", "1|1");
        after.table();

        CommandException notExtending = refused(new BsonDocument("_configsvrRefineCollectionShardKey", new BsonString("refinedb.c"))
                .append("key", new BsonDocument("y", new BsonInt32(1))));
        assertThat(notExtending.code()).isEqualTo(ErrorCode.InvalidOptions);
        assertThat(notExtending.getMessage()).contains("key");
    }

    @Test
    void refiningTheShardKeyIsRefusedWhenTheNewKeyNoLongerLeadsAUniqueIndex() {
        shardRanged("refineuq.c", 10);
        A.answer("listIndexes", cmd -> Replies.cursor(true, List.of(BsonDocument.parse("{v: 2, key: {_id: 1}, name: '_id_'}"),
                BsonDocument.parse("{v: 2, key: {x: 1, y: 1}, name: 'x_1_y_1', unique: true}")), 0, "refineuq.c"));

        CommandException refused = refused(new BsonDocument("_configsvrRefineCollectionShardKey", new BsonString("refineuq.c"))
                .append("key", BsonDocument.parse("{x: 1, z: 1}")));
        assertThat(refused.code()).isEqualTo(ErrorCode.InvalidOptions);
        assertThat(refused.getMessage()).contains("{\"x\": 1, \"y\": 1}", "Uniqueness can't be maintained unless shard key is a prefix");
        assertThat(routing("refineuq.c").collection().key().pattern()).isEqualTo(BsonDocument.parse("{x: 1}"));

        run(new BsonDocument("_configsvrRefineCollectionShardKey", new BsonString("refineuq.c")).append("key", BsonDocument.parse("{x: 1, y: 1}")));
        assertThat(routing("refineuq.c").collection().key().pattern()).isEqualTo(BsonDocument.parse("{x: 1, y: 1}"));
    }

    @Test
    void dropCollectionDropsOnEveryShardAndUnshardsTheNamespace() {
        shardCollection("dropdb.c", new BsonDocument("_id", ShardKeyPattern.hashedValue()));
        UUID uuid = routing("dropdb.c").collection().uuid();
        BsonDocument reply = run(new BsonDocument("_configsvrDropCollection", new BsonString("dropdb.c")));
        assertThat(reply.getBoolean("dropped").getValue()).isTrue();
        for (StubShard s : List.of(A, B, C)) {
            assertThat(s.received).contains("drop dropdb");
            assertThat(s.received("drop").getFirst().getString("drop").getValue()).isEqualTo("c");
        }
        assertThat(routing("dropdb.c").collection()).isNull();
        assertThat(findConfig("chunks", new BsonDocument("uuid", new BsonBinary(uuid, UuidRepresentation.STANDARD)))).isEmpty();
        assertThat(run(new BsonDocument("_configsvrDropCollection", new BsonString("dropdb.c"))).getBoolean("dropped").getValue()).isFalse();
    }

    @Test
    void dropDatabaseDropsItsShardedCollectionsToo() {
        shardCollection("dropalldb.c", new BsonDocument("_id", ShardKeyPattern.hashedValue()));
        run(new BsonDocument("_configsvrDropDatabase", new BsonString("dropalldb")));
        assertThat(routing("dropalldb.c").collection()).isNull();
        assertThat(C.received).contains("drop dropalldb");
        // sharding it again after the database is re-created starts a new collection instance
        shardCollection("dropalldb.c", X);
        assertThat(routing("dropalldb.c").collection().key().pattern()).isEqualTo(X);
    }

    @Test
    void aShardThatCannotBlockLeavesTheCollectionShardedUntilTheResumedCoordinatorFinishes() {
        shardCollection("dropfail.c", X);
        C.answer("_shardsvrParticipantBlock", cmd -> new CommandException(ErrorCode.InternalError, "disk on fire").toReply());
        assertThat(refused(new BsonDocument("_configsvrDropCollection", new BsonString("dropfail.c"))).code()).isEqualTo(ErrorCode.InternalError);
        assertThat(routing("dropfail.c").collection()).isNotNull();
        assertThat(refused(new BsonDocument("_configsvrSplitChunk", new BsonString("dropfail.c")).append("middle", x(5))).code())
                .as("no chunk commit while the drop is unfinished").isEqualTo(ErrorCode.ConflictingOperationInProgress);

        C.reset(); // the shard answers again: the coordinator resumes by itself
        await().atMost(Duration.ofSeconds(20)).until(() -> routing("dropfail.c").collection() == null && coordinatorPhase("dropfail.c") == null);
        assertThat(C.received("drop")).isNotEmpty();
        assertThat(blockTypes(C, "dropfail.c")).last().as("the section was released").isEqualTo("Unblock");
    }

    @Test
    void aSecondDropJoinsTheRunningCoordinatorAndShardCollectionWaitsForNone() throws Exception {
        shardCollection("dropjoin.c", X);
        long entered = failPoints.timesEntered("dropCollection.afterBlock");
        failPoints.configure("dropCollection.afterBlock", FailPointAction.pause(), 1);
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            Future<BsonDocument> first = pool.submit(() -> run(new BsonDocument("_configsvrDropCollection", new BsonString("dropjoin.c"))));
            assertThat(failPoints.awaitEntered("dropCollection.afterBlock", entered + 1, Duration.ofSeconds(20))).isTrue();
            Future<BsonDocument> second = pool.submit(() -> run(new BsonDocument("_configsvrDropCollection", new BsonString("dropjoin.c"))));
            assertThat(refused(new BsonDocument("_configsvrShardCollection", new BsonString("dropjoin.c")).append("key", X)).code())
                    .isEqualTo(ErrorCode.ConflictingOperationInProgress);
            assertThat(coordinatorPhase("dropjoin.c")).isEqualTo("COMMIT");

            failPoints.configure("dropCollection.afterBlock", null, 0);
            assertThat(first.get(20, java.util.concurrent.TimeUnit.SECONDS).getBoolean("dropped").getValue()).isTrue();
            assertThat(second.get(20, java.util.concurrent.TimeUnit.SECONDS).getBoolean("dropped").getValue()).isTrue();
        } finally {
            failPoints.configure("dropCollection.afterBlock", null, 0);
        }
        for (StubShard s : List.of(A, B, C)) {
            assertThat(blockTypes(s, "dropjoin.c")).as("one coordinator ran").containsExactly("ReadsAndWrites", "Unblock");
        }
        assertThat(coordinatorPhase("dropjoin.c")).isNull();
    }

    @Test
    void anUnfinishedCoordinatorIsResumedFromThePhaseItReached() {
        for (String phase : List.of("BLOCK", "COMMIT", "DROP_DATA", "RELEASE")) {
            String ns = "dropresume" + phase.toLowerCase().replace("_", "") + ".c";
            shardCollection(ns, X);
            UUID uuid = routing(ns).collection().uuid();
            List.of(A, B, C).forEach(StubShard::reset);
            // what a config service that died after reaching this phase left behind
            jdbc.sql("INSERT INTO sharding_ddl_coordinators (namespace, operation, phase, collection_uuid) VALUES (?, 'dropCollection', ?, ?)")
                    .params(ns, phase, uuid).update();

            await().atMost(Duration.ofSeconds(20)).until(() -> coordinatorPhase(ns) == null);
            boolean committedNow = phase.equals("BLOCK") || phase.equals("COMMIT");
            assertThat(routing(ns).collection() == null).as("%s: the catalog commit ran", phase).isEqualTo(committedNow);
            for (StubShard s : List.of(A, B, C)) {
                assertThat(blockTypes(s, ns)).as("%s on %s", phase, s.url()).containsExactlyElementsOf(
                        phase.equals("BLOCK") ? List.of("ReadsAndWrites", "Unblock") : List.of("Unblock"));
                assertThat(s.received("drop")).as("%s on %s", phase, s.url()).hasSize(phase.equals("RELEASE") ? 0 : 1);
            }
        }
    }

    private @Nullable String coordinatorPhase(String ns) {
        return jdbc.sql("SELECT phase FROM sharding_ddl_coordinators WHERE namespace = ?").param(ns).query(String.class).optional().orElse(null);
    }

    private static List<String> blockTypes(StubShard shard, String ns) {
        return shard.received("_shardsvrParticipantBlock").stream()
                .filter(c -> c.getDocument("reason").getString("ns").getValue().equals(ns))
                .map(c -> c.getString("blockType").getValue()).toList();
    }

    private List<BsonDocument> findConfig(String collection, BsonDocument filter) {
        BsonDocument reply = client.runChecked("config", "http://localhost:" + port, "config",
                new BsonDocument("find", new BsonString(collection)).append("filter", filter));
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    @Test
    void configCollectionsAndChunksAreReadableWithFind() {
        Routing r = shardRanged("finddb.c", 20, 10);
        List<BsonDocument> collections = findConfig("collections", new BsonDocument("_id", new BsonString("finddb.c")));
        assertThat(collections).containsExactly(r.collection().toBson());
        BsonBinary uuid = new BsonBinary(r.collection().uuid(), UuidRepresentation.STANDARD);
        List<BsonDocument> chunks = findConfig("chunks", new BsonDocument("uuid", uuid));
        assertThat(chunks).extracting(d -> d.getDocument("min")).containsExactly(new BsonDocument("x", new BsonMinKey()), x(10), x(20));
        BsonDocument first = chunks.getFirst();
        assertThat(first.keySet()).containsExactly("_id", "uuid", "min", "max", "shard", "lastmod", "jumbo", "history");
        assertThat(first.get("_id").isObjectId()).isTrue();
        assertThat(first.getBinary("uuid")).isEqualTo(uuid);
        assertThat(first.getArray("history").get(0).asDocument().getString("shard").getValue()).isEqualTo("shA");
        assertThat(Chunk.fromBson(first)).isEqualTo(r.chunks().getFirst());
        assertThat(findConfig("chunks", new BsonDocument("uuid", uuid).append("shard", new BsonString("shB")))).isEmpty();
        // without a uuid every collection's chunks are searched
        assertThat(findConfig("chunks", new BsonDocument("shard", new BsonString("shA")))).containsSubsequence(chunks);
    }

    @Test
    void everyRoutingChangeIsPublishedToKafkaWithItsVersions() {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedInfra.shared().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "config-sharding-test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(CatalogEvent.TOPIC));
            shardCollection("eventdb.c", new BsonDocument("_id", ShardKeyPattern.hashedValue()));
            Routing r = routing("eventdb.c");
            ShardedCollection c = r.collection();
            Chunk last = r.chunks().getLast(); // on shC, whose version is the collection version: the split bumps the major
            run(split(c, last, new BsonDocument("_id", new BsonInt64(last.range().min().getInt64("_id").getValue() + 1))));
            run(migrate(c, r.chunks().getFirst(), "shB")); // shA -> shB: 3|0, control chunk on shA 3|1
            run(merge(c, r.chunks().get(0).range().min(), r.chunks().get(1).range().max(), "shB")); // both on shB now: 4|0
            BsonDocument refinedKey = new BsonDocument("_id", ShardKeyPattern.hashedValue()).append("y", new BsonInt32(1));
            ShardedCollection refined = ShardedCollection.fromBson(run(new BsonDocument("_configsvrRefineCollectionShardKey",
                    new BsonString("eventdb.c")).append("key", refinedKey)).getDocument("collection"));
            run(new BsonDocument("_configsvrDropCollection", new BsonString("eventdb.c")));
            relay.relay();

            List<CatalogEvent> events = awaitEvents(consumer, e -> "eventdb.c".equals(e.namespace())
                    && e.type() == CatalogEvent.Type.ROUTING_CHANGED, 6);
            assertThat(events).extracting(CatalogEvent::type).containsOnly(CatalogEvent.Type.ROUTING_CHANGED);
            assertThat(events).extracting(CatalogEvent::database).containsOnly("eventdb");
            assertThat(events).extracting(CatalogEvent::epoch).containsExactly(c.epoch().toHexString(), c.epoch().toHexString(),
                    c.epoch().toHexString(), c.epoch().toHexString(), refined.epoch().toHexString(), refined.epoch().toHexString());
            assertThat(events).extracting(CatalogEvent::collectionVersion).containsExactly(v(c, 1, 5).toString(), v(c, 2, 2).toString(),
                    v(c, 3, 1).toString(), v(c, 4, 0).toString(), v(refined, 4, 0).toString(), null);
            assertThat(events).extracting(CatalogEvent::shards).containsExactly(List.of("shA", "shB", "shC"), List.of("shC"),
                    List.of("shA", "shB"), List.of("shB"), List.of("shA", "shB", "shC"), List.of("shA", "shB", "shC"));
        }
    }

    // --- moveChunk / moveRange (_configsvrMoveRange), the migration's fence, config.changelog ---

    private static BsonDocument moveRange(String ns, String toShard) {
        return new BsonDocument("_configsvrMoveRange", new BsonString(ns)).append("toShard", new BsonString(toShard));
    }

    @Test
    void moveRangeAsksTheOwnerToMoveTheChunkItResolvedAndAMoveToTheOwnerIsANoOp() {
        Routing r = shardRanged("movedb.c", 10, 20);
        BsonDocument reply = run(moveRange("movedb.c", "shB").append("find", x(15)).append("waitForDelete", BsonBoolean.TRUE));

        assertThat(reply.getBoolean("moved").getValue()).isTrue();
        BsonDocument asked = A.received("_shardsvrMoveRange").getFirst();
        assertThat(asked.getString("_shardsvrMoveRange").getValue()).isEqualTo("movedb.c");
        assertThat(asked.getDocument("min")).isEqualTo(x(10));
        assertThat(asked.getDocument("max")).isEqualTo(x(20));
        assertThat(ChunkVersion.fromBson(asked.getDocument("chunkVersion"))).isEqualTo(v(r.collection(), 1, 1));
        assertThat(asked.getString("fromShard").getValue()).isEqualTo("shA");
        assertThat(asked.getString("toShard").getValue()).isEqualTo("shB");
        assertThat(asked.getBoolean("waitForDelete").getValue()).isTrue();
        assertThat(asked.getNumber("maxChunkSizeBytes").longValue()).isEqualTo(128L * 1024 * 1024);

        BsonDocument bounds = run(moveRange("movedb.c", "shA").append("bounds", new BsonArray(List.of(x(20),
                new BsonDocument("x", new BsonMaxKey())))));
        assertThat(bounds.getBoolean("moved").getValue()).as("already on shA").isFalse();
        assertThat(A.received("_shardsvrMoveRange")).hasSize(1);
        assertThat(routing("movedb.c").docs()).isEqualTo(r.docs());
    }

    @Test
    void moveRangeSplitsOffItsRangeFirst() {
        shardRanged("moverange.c", 100);
        run(moveRange("moverange.c", "shB").append("min", x(10)).append("max", x(20)));
        assertThat(routing("moverange.c").chunks()).extracting(c -> c.range().min())
                .containsExactly(new BsonDocument("x", new BsonMinKey()), x(10), x(20), x(100));
        assertThat(A.received("_shardsvrMoveRange").getLast().getDocument("min")).isEqualTo(x(10));
        assertThat(A.received("_shardsvrMoveRange").getLast().getDocument("max")).isEqualTo(x(20));

        // without max: up to the first point the owner's splitVector finds for half the max chunk size
        A.answer("splitVector", cmd -> Replies.ok(new BsonDocument("splitKeys", new BsonArray(List.of(x(150), x(200))))));
        run(moveRange("moverange.c", "shB").append("min", x(100)));
        assertThat(A.received("splitVector").getLast().getNumber("maxChunkSizeBytes").longValue()).isEqualTo(64L * 1024 * 1024);
        assertThat(A.received("_shardsvrMoveRange").getLast().getDocument("min")).isEqualTo(x(100));
        assertThat(A.received("_shardsvrMoveRange").getLast().getDocument("max")).isEqualTo(x(150));
        assertThat(routing("moverange.c").chunks()).hasSize(5);
    }

    @Test
    void badMoveRequestsAreClientErrorsNamingTheField() {
        shardRanged("badmove.c", 10);
        assertThat(refused(moveRange("nosuchdb.c", "shB").append("find", x(1))).code()).isEqualTo(ErrorCode.NamespaceNotFound);
        assertThat(refused(moveRange("badmove.unsharded", "shB").append("find", x(1))).code()).isEqualTo(ErrorCode.NamespaceNotSharded);
        CommandException unknownShard = refused(moveRange("badmove.c", "nosuchshard").append("find", x(1)).append("toField", new BsonString("to")));
        assertThat(unknownShard.code()).isEqualTo(ErrorCode.ShardNotFound);
        assertThat(unknownShard.getMessage()).contains("'to'");
        CommandException notAChunk = refused(moveRange("badmove.c", "shB").append("bounds", new BsonArray(List.of(x(0), x(10)))));
        assertThat(notAChunk.code()).isEqualTo(ErrorCode.BadValue);
        assertThat(notAChunk.getMessage()).contains("'bounds'");
        CommandException partialKey = refused(moveRange("badmove.c", "shB").append("find", new BsonDocument("y", new BsonInt32(1))));
        assertThat(partialKey.code()).isEqualTo(ErrorCode.ShardKeyNotFound);
        assertThat(partialKey.getMessage()).contains("'find'");
        CommandException acrossChunks = refused(moveRange("badmove.c", "shB").append("min", x(5)).append("max", x(15)));
        assertThat(acrossChunks.code()).isEqualTo(ErrorCode.BadValue);
        assertThat(acrossChunks.getMessage()).contains("'max'");
        assertThat(refused(moveRange("badmove.c", "shB")).code()).isEqualTo(ErrorCode.BadValue);
        assertThat(A.received("_shardsvrMoveRange")).isEmpty();
    }

    @Test
    void aMigrationIsRefusedWhileADropOfTheNamespaceIsUnfinished() {
        shardCollection("movedrop.c", X);
        C.answer("_shardsvrParticipantBlock", cmd -> new CommandException(ErrorCode.InternalError, "disk on fire").toReply());
        refused(new BsonDocument("_configsvrDropCollection", new BsonString("movedrop.c")));
        CommandException e = refused(moveRange("movedrop.c", "shB").append("find", x(1)));
        assertThat(e.code()).isEqualTo(ErrorCode.ConflictingOperationInProgress);
        assertThat(A.received("_shardsvrMoveRange")).isEmpty();
        C.reset();
        await().atMost(Duration.ofSeconds(20)).until(() -> coordinatorPhase("movedrop.c") == null);
    }

    @Test
    void theCommitChecksTheChunkVersionAndTheFenceRefusesALateCommit() {
        Routing r = shardRanged("fencedb.c", 10);
        ShardedCollection c = r.collection();
        Chunk low = r.chunks().getFirst(); // 1|0; the collection version is 1|1
        BsonDocument fence = commit("_configsvrEnsureChunkVersionIsGreaterThan", c).append("minKey", low.range().min())
                .append("maxKey", low.range().max()).append("version", v(c, 1, 1).toBson());

        assertThat(run(fence).getBoolean("fenced").getValue()).isTrue();
        assertThat(routing("fencedb.c").chunks().getFirst().lastmod()).isEqualTo(v(c, 2, 0));
        CommandException late = refused(migrate(c, low, "shB").append("migratedChunk", low.range().toBson().append("lastmod", low.lastmod().toBson())));
        assertThat(late.code()).isEqualTo(ErrorCode.StaleConfig);
        assertThat(routing("fencedb.c").chunks().getFirst().shard()).isEqualTo("shA");

        Chunk fenced = routing("fencedb.c").chunks().getFirst();
        run(migrate(c, fenced, "shB").append("migratedChunk", fenced.range().toBson().append("lastmod", fenced.lastmod().toBson())));
        assertThat(routing("fencedb.c").chunks().getFirst().shard()).isEqualTo("shB");
        assertThat(run(fence).getBoolean("fenced").getValue()).as("a moved chunk is above the fence's version").isFalse();
        assertThat(routing("fencedb.c").chunks().getFirst().lastmod()).isEqualTo(v(c, 3, 0));
    }

    @Test
    void shardsRecordTheirMigrationsInTheChangelogWithTheirEvents() {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedInfra.shared().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "config-sharding-test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(CatalogEvent.TOPIC));
            Routing r = shardRanged("logdb.c", 10);
            BsonDocument details = new BsonDocument("min", x(10)).append("max", new BsonDocument("x", new BsonMaxKey()))
                    .append("from", new BsonString("shA")).append("to", new BsonString("shB"));
            run(new BsonDocument("_configsvrLogChange", new BsonString("moveChunk.start")).append("ns", new BsonString("logdb.c"))
                    .append("shard", new BsonString("shA")).append("details", details));
            run(migrate(r.collection(), r.chunks().get(1), "shB"));
            run(new BsonDocument("_configsvrLogChange", new BsonString("moveChunk.commit")).append("ns", new BsonString("logdb.c"))
                    .append("shard", new BsonString("shA")).append("details", details));
            run(new BsonDocument("_configsvrLogChange", new BsonString("moveChunk.start")).append("ns", new BsonString("logdb.c"))
                    .append("shard", new BsonString("shA")).append("details", details));
            run(new BsonDocument("_configsvrLogChange", new BsonString("moveChunk.error")).append("ns", new BsonString("logdb.c"))
                    .append("shard", new BsonString("shA")).append("details", details.clone().append("errmsg", new BsonString("recipient failed"))));
            relay.relay();

            List<BsonDocument> entries = findConfig("changelog", new BsonDocument("ns", new BsonString("logdb.c")));
            assertThat(entries).extracting(e -> e.getString("what").getValue())
                    .containsExactly("moveChunk.start", "moveChunk.commit", "moveChunk.start", "moveChunk.error");
            assertThat(entries.getFirst().getString("shard").getValue()).isEqualTo("shA");
            assertThat(entries.getFirst().getString("server").getValue()).isEqualTo("shA");
            assertThat(entries.getFirst().isDateTime("time")).isTrue();
            assertThat(entries.getFirst().getDocument("details")).isEqualTo(details);
            assertThat(entries.getLast().getDocument("details").getString("errmsg").getValue()).isEqualTo("recipient failed");

            List<CatalogEvent> events = awaitEvents(consumer, e -> "logdb.c".equals(e.namespace()) && e.type().name().startsWith("MIGRATION_"), 4);
            assertThat(events).extracting(CatalogEvent::type).containsExactly(CatalogEvent.Type.MIGRATION_STARTED,
                    CatalogEvent.Type.MIGRATION_COMMITTED, CatalogEvent.Type.MIGRATION_STARTED, CatalogEvent.Type.MIGRATION_ABORTED);
            assertThat(events).extracting(CatalogEvent::shards).containsOnly(List.of("shA", "shB"));
            assertThat(events.get(1).collectionVersion()).isEqualTo(v(r.collection(), 2, 1).toString());
        }
    }

    private List<CatalogEvent> awaitEvents(KafkaConsumer<String, String> consumer, Predicate<CatalogEvent> wanted, int count) {
        List<CatalogEvent> seen = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline && seen.size() < count) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                CatalogEvent event = json.readValue(record.value(), CatalogEvent.class);
                // the relay delivers at least once (a send acknowledged too late is sent again): one per sequence
                if (wanted.test(event) && seen.stream().noneMatch(e -> e.sequence() == event.sequence())) {
                    seen.add(event);
                }
            }
        }
        assertThat(seen).hasSize(count);
        return seen;
    }
}
