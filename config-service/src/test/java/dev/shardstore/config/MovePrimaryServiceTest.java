package dev.shardstore.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.config.outbox.OutboxRelay;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.support.failpoint.FailPointAction;
import dev.shardstore.support.failpoint.FailPoints;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
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
 * The config service's movePrimary coordinator (docs/sharding-protocol.md, "Moving a database's primary shard") against a
 * real embedded PostgreSQL and Kafka broker over its real internal HTTP endpoint, with three {@link StubShard}s: new
 * databases land on shA (least data), whose {@code listCollections} is answered per test. Each test uses its own
 * databases. What each shard was asked, in order, shows the phases that ran.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class MovePrimaryServiceTest {
    private static final StubShard A = new StubShard("shA", 1_000);
    private static final StubShard B = new StubShard("shB", 2_000);
    private static final StubShard C = new StubShard("shC", 3_000);

    @LocalServerPort
    int port;
    @Autowired
    FailPoints failPoints;
    @Autowired
    JdbcClient jdbc;
    @Autowired
    OutboxRelay relay;
    @Autowired
    JsonMapper json;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(30));

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("config_move_primary_test").forEach((k, v) -> registry.add(k, () -> v));
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
        A.answer("listCollections", cmd -> Replies.ok(new BsonDocument("cursor", new BsonDocument("id", new BsonInt64(0))
                .append("ns", new BsonString("x.$cmd.listCollections"))
                .append("firstBatch", new BsonArray(List.of(named("b"), named("a")))))));
    }

    private static BsonDocument named(String name) {
        return new BsonDocument("name", new BsonString(name)).append("type", new BsonString("collection"));
    }

    // --- the move -----------------------------------------------------------------------------------------------

    @Test
    void aMoveCommitsLastModPlusOneWithTheSameUuidAndMovesOnlyTheUnshardedCollections() {
        DatabaseVersion before = create("mp_commit");
        run(new BsonDocument("_configsvrShardCollection", new BsonString("mp_commit.sharded")).append("key", new BsonDocument("x", new BsonInt32(1))));
        A.reset();
        B.reset();
        A.answer("listCollections", cmd -> Replies.ok(new BsonDocument("cursor", new BsonDocument("id", new BsonInt64(0))
                .append("firstBatch", new BsonArray(List.of(named("b"), named("sharded"), named("a")))))));
        try (KafkaConsumer<String, String> consumer = consumer()) {
            assertThat(movePrimary("mp_commit", "shB").getNumber("ok").intValue()).isEqualTo(1);

            BsonDocument entry = database("mp_commit");
            DatabaseVersion after = DatabaseVersion.fromBson(entry.getDocument("version"));
            assertThat(entry.getString("primary").getValue()).isEqualTo("shB");
            assertThat(after.uuid()).isEqualTo(before.uuid());
            assertThat(after.lastMod()).isEqualTo(before.lastMod() + 1);
            assertThat(Integer.toUnsignedLong(after.timestamp().getTime())).isGreaterThanOrEqualTo(Integer.toUnsignedLong(before.timestamp().getTime()));
            assertThat(after.timestamp()).isNotEqualTo(before.timestamp());

            assertThat(A.received).containsExactly("_shardsvrMovePrimaryEnterCriticalSection mp_commit", "listCollections mp_commit",
                    "_shardsvrMovePrimaryEnterCriticalSection mp_commit", "_shardsvrMovePrimaryExitCriticalSection mp_commit",
                    "drop mp_commit", "drop mp_commit");
            assertThat(A.received("_shardsvrMovePrimaryEnterCriticalSection")).extracting(c -> c.getString("blockType").getValue())
                    .containsExactly("Writes", "ReadsAndWrites");
            assertThat(A.received("drop")).extracting(c -> c.getString("drop").getValue()).containsExactly("a", "b");
            BsonDocument clone = B.received("_shardsvrCloneCatalogData").getFirst();
            assertThat(B.received).containsExactly("_shardsvrCloneCatalogData mp_commit");
            assertThat(clone.getString("from").getValue()).isEqualTo(A.url());
            assertThat(clone.getString("fromShard").getValue()).isEqualTo("shA");
            assertThat(clone.getArray("collections")).extracting(v -> v.asString().getValue()).containsExactly("a", "b");
            assertThat(coordinatorPhase("mp_commit")).isNull();
            List<BsonDocument> changelog = client.runChecked("config", "http://localhost:" + port, "config",
                    new BsonDocument("find", new BsonString("changelog")).append("filter", new BsonDocument("ns", new BsonString("mp_commit"))))
                    .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
            assertThat(changelog).extracting(e -> e.getString("what").getValue()).containsExactly("movePrimary.start", "movePrimary.commit");
            assertThat(changelog.getLast().getDocument("details")).isEqualTo(new BsonDocument("database", new BsonString("mp_commit"))
                    .append("from", new BsonString("shA")).append("to", new BsonString("shB"))
                    .append("collections", new BsonArray(List.of(new BsonString("a"), new BsonString("b")))));

            relay.relay();
            assertThat(awaitEvent(consumer, "mp_commit")).isNotNull();
        }
    }

    @Test
    void movingToTheCurrentPrimaryIsANoOp() {
        DatabaseVersion before = create("mp_noop");
        A.reset();
        assertThat(movePrimary("mp_noop", "shA").getNumber("ok").intValue()).isEqualTo(1);
        assertThat(DatabaseVersion.fromBson(database("mp_noop").getDocument("version"))).isEqualTo(before);
        assertThat(A.received).isEmpty();
    }

    @Test
    void refusalsNameWhatIsWrong() {
        create("mp_refused");
        assertThat(refused(movePrimaryCommand("mp_nosuchdb", "shB")).code()).isEqualTo(ErrorCode.NamespaceNotFound);
        assertThat(refused(movePrimaryCommand("mp_refused", "shZ")).code()).isEqualTo(ErrorCode.ShardNotFound);
        assertThat(refused(movePrimaryCommand("config", "shB")).code()).isEqualTo(ErrorCode.InvalidOptions);
        assertThat(refused(movePrimaryCommand("admin", "shB")).code()).isEqualTo(ErrorCode.InvalidOptions);
        assertThat(B.received("_shardsvrCloneCatalogData")).isEmpty();
    }

    @Test
    void whileAMoveRunsTheSameRequestJoinsItAndEveryOtherDdlOfTheDatabaseIsAConflict() throws Exception {
        DatabaseVersion before = create("mp_busy");
        long entered = failPoints.timesEntered("movePrimary.afterBlockWrites");
        failPoints.configure("movePrimary.afterBlockWrites", FailPointAction.pause(), 1);
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            Future<BsonDocument> first = pool.submit(() -> movePrimary("mp_busy", "shB"));
            assertThat(failPoints.awaitEntered("movePrimary.afterBlockWrites", entered + 1, Duration.ofSeconds(20))).isTrue();
            Future<BsonDocument> joined = pool.submit(() -> movePrimary("mp_busy", "shB"));

            assertThat(refused(movePrimaryCommand("mp_busy", "shC")).code()).isEqualTo(ErrorCode.ConflictingOperationInProgress);
            assertThat(refused(new BsonDocument("_configsvrDropDatabase", new BsonString("mp_busy"))).code())
                    .isEqualTo(ErrorCode.ConflictingOperationInProgress);
            assertThat(refused(new BsonDocument("_configsvrShardCollection", new BsonString("mp_busy.c"))
                    .append("key", new BsonDocument("x", new BsonInt32(1)))).code()).isEqualTo(ErrorCode.ConflictingOperationInProgress);
            assertThat(refused(new BsonDocument("_configsvrDropCollection", new BsonString("mp_busy.c"))).code())
                    .isEqualTo(ErrorCode.ConflictingOperationInProgress);
            assertThat(coordinatorPhase("mp_busy")).isEqualTo("CLONE");

            failPoints.configure("movePrimary.afterBlockWrites", null, 0);
            assertThat(first.get(20, TimeUnit.SECONDS).getNumber("ok").intValue()).isEqualTo(1);
            assertThat(joined.get(20, TimeUnit.SECONDS).getNumber("ok").intValue()).isEqualTo(1);
        } finally {
            failPoints.configure("movePrimary.afterBlockWrites", null, 0);
        }
        assertThat(B.received("_shardsvrCloneCatalogData")).as("one coordinator ran").hasSize(1);
        assertThat(DatabaseVersion.fromBson(database("mp_busy").getDocument("version")).lastMod()).isEqualTo(before.lastMod() + 1);
        assertThat(run(new BsonDocument("_configsvrDropDatabase", new BsonString("mp_busy"))).getString("dropped").getValue())
                .as("dropDatabase works again once the move is over").isEqualTo("mp_busy");
    }

    @Test
    void aMoveDoesNotStartWhileADdlCoordinatorOfOneOfTheDatabasesCollectionsIsUnfinished() {
        create("mp_waits");
        // an unfinished drop of one of its collections, which cannot finish while shC does not answer its release
        C.answer("_shardsvrParticipantBlock", cmd -> ErrorReplies.errorReply(ErrorCode.HostUnreachable, "down", new BsonDocument()));
        jdbc.sql("INSERT INTO sharding_ddl_coordinators (namespace, operation, phase) VALUES ('mp_waits.c', 'dropCollection', 'RELEASE')").update();
        try {
            CommandException refused = refused(movePrimaryCommand("mp_waits", "shB"));
            assertThat(refused.code()).isEqualTo(ErrorCode.ConflictingOperationInProgress);
            assertThat(refused.getMessage()).contains("dropCollection of mp_waits.c");
            assertThat(B.received("_shardsvrCloneCatalogData")).isEmpty();
        } finally {
            C.reset();
            await().atMost(Duration.ofSeconds(20)).until(() -> coordinatorPhase("mp_waits.c") == null);
        }
        assertThat(movePrimary("mp_waits", "shB").getNumber("ok").intValue()).as("once the drop is over").isEqualTo(1);
    }

    // --- resuming -----------------------------------------------------------------------------------------------

    @Test
    void anUnfinishedCoordinatorIsResumedFromEachPhaseItRecorded() {
        Map<String, List<String>> donorCalls = Map.of(
                "BLOCK_WRITES", List.of("enter Writes", "listCollections", "enter ReadsAndWrites", "exit", "drop a", "drop b"),
                "CLONE", List.of("enter ReadsAndWrites", "exit", "drop c"),
                "COMMIT", List.of("enter ReadsAndWrites", "exit", "drop c"),
                "RELEASE", List.of("exit", "drop c"),
                "DROP_OLD", List.of("drop c"));
        for (String phase : List.of("BLOCK_WRITES", "CLONE", "COMMIT", "RELEASE", "DROP_OLD")) {
            String db = "mp_resume_" + phase.toLowerCase();
            DatabaseVersion before = create(db);
            boolean committed = phase.equals("RELEASE") || phase.equals("DROP_OLD");
            if (committed) { // what the commit of the crashed coordinator left
                jdbc.sql("UPDATE databases SET primary_shard = 'shB', version_last_mod = version_last_mod + 1 WHERE id = ?").param(db).update();
            }
            A.reset();
            B.reset();
            A.answer("listCollections", cmd -> Replies.ok(new BsonDocument("cursor", new BsonDocument("id", new BsonInt64(0))
                    .append("firstBatch", new BsonArray(List.of(named("a"), named("b")))))));
            BsonDocument state = new BsonDocument("from", new BsonString("shA")).append("to", new BsonString("shB"))
                    .append("version", before.toBson())
                    .append("collections", new BsonArray(phase.equals("BLOCK_WRITES") ? List.of() : List.of(new BsonString("c"))));
            jdbc.sql("INSERT INTO sharding_ddl_coordinators (namespace, operation, phase, state) VALUES (?, 'movePrimary', ?, ?)")
                    .params(db, phase, BsonBytes.encode(state)).update();

            await().atMost(Duration.ofSeconds(20)).until(() -> coordinatorPhase(db) == null);
            assertThat(donorCalls()).as(phase).isEqualTo(donorCalls.get(phase));
            assertThat(B.received("_shardsvrCloneCatalogData")).as(phase)
                    .hasSize(phase.equals("BLOCK_WRITES") || phase.equals("CLONE") ? 1 : 0);
            BsonDocument entry = database(db);
            assertThat(entry.getString("primary").getValue()).as(phase).isEqualTo("shB");
            assertThat(DatabaseVersion.fromBson(entry.getDocument("version")).lastMod()).as(phase).isEqualTo(before.lastMod() + 1);
        }
    }

    @Test
    void aCommitThatFindsTheDatabaseChangedRollsTheMoveBack() throws Exception {
        create("mp_rollback");
        long entered = failPoints.timesEntered("movePrimary.afterClone");
        failPoints.configure("movePrimary.afterClone", FailPointAction.pause(), 1);
        try (ExecutorService pool = Executors.newSingleThreadExecutor()) {
            Future<CommandException> move = pool.submit(() -> refused(movePrimaryCommand("mp_rollback", "shB")));
            assertThat(failPoints.awaitEntered("movePrimary.afterClone", entered + 1, Duration.ofSeconds(20))).isTrue();
            // something that bypassed the DDL serialization re-created the database
            jdbc.sql("UPDATE databases SET version_uuid = ? WHERE id = 'mp_rollback'").param(UUID.randomUUID()).update();
            failPoints.configure("movePrimary.afterClone", null, 0);

            CommandException refused = move.get(20, TimeUnit.SECONDS);
            assertThat(refused.code()).isEqualTo(ErrorCode.ConflictingOperationInProgress);
            assertThat(refused.getMessage()).contains("rolled back");
        } finally {
            failPoints.configure("movePrimary.afterClone", null, 0);
        }
        assertThat(database("mp_rollback").getString("primary").getValue()).isEqualTo("shA");
        assertThat(B.received("drop")).extracting(c -> c.getString("drop").getValue()).as("the copies go").containsExactly("a", "b");
        assertThat(A.received("drop")).as("the originals stay").isEmpty();
        assertThat(A.received).last().isEqualTo("_shardsvrMovePrimaryExitCriticalSection mp_rollback");
        assertThat(coordinatorPhase("mp_rollback")).isNull();
    }

    // --- helpers ------------------------------------------------------------------------------------------------

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

    private static BsonDocument movePrimaryCommand(String db, String to) {
        return new BsonDocument("_configsvrMovePrimary", new BsonString(db)).append("to", new BsonString(to));
    }

    private BsonDocument movePrimary(String db, String to) {
        return run(movePrimaryCommand(db, to));
    }

    /** Creates {@code db} (on shA, the shard with the least data) and returns its version. */
    private DatabaseVersion create(String db) {
        BsonDocument entry = run(new BsonDocument("_configsvrCreateDatabase", new BsonString(db))).getDocument("database");
        assertThat(entry.getString("primary").getValue()).isEqualTo("shA");
        return DatabaseVersion.fromBson(entry.getDocument("version"));
    }

    private BsonDocument database(String db) {
        return run(new BsonDocument("_configsvrGetDatabase", new BsonString(db))).getDocument("database");
    }

    /** What shA (the old primary) was asked since its reset, shortened: "enter Writes", "listCollections", "drop a", … */
    private static List<String> donorCalls() {
        return A.commands.stream().filter(c -> !c.getFirstKey().equals("_shardsvrName") && !c.getFirstKey().equals("listDatabases"))
                .map(c -> switch (c.getFirstKey()) {
                    case "_shardsvrMovePrimaryEnterCriticalSection" -> "enter " + c.getString("blockType").getValue();
                    case "_shardsvrMovePrimaryExitCriticalSection" -> "exit";
                    case "drop" -> "drop " + c.getString("drop").getValue();
                    default -> c.getFirstKey();
                })
                .toList();
    }

    private @Nullable String coordinatorPhase(String key) {
        return jdbc.sql("SELECT phase FROM sharding_ddl_coordinators WHERE namespace = ?").param(key).query(String.class).optional().orElse(null);
    }

    private static KafkaConsumer<String, String> consumer() {
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedInfra.shared().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "config-move-primary-test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer());
        consumer.subscribe(List.of(CatalogEvent.TOPIC));
        return consumer;
    }

    /** The DATABASE_VERSION_CHANGED event of {@code db}, within 30 s. */
    private @Nullable CatalogEvent awaitEvent(KafkaConsumer<String, String> consumer, String db) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                CatalogEvent event = json.readValue(record.value(), CatalogEvent.class);
                if (event.type() == CatalogEvent.Type.DATABASE_VERSION_CHANGED && event.database().equals(db)) {
                    return event;
                }
            }
        }
        return null;
    }
}
