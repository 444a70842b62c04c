package dev.shardstore.config.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.UuidRepresentation;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The resharding coordinator's catalog commands on a real config service (embedded PostgreSQL): registering holds the
 * collection (refine, drop and migrations are ConflictingOperationInProgress; the config service does not resume the
 * row), fixes donors and recipients, is idempotent for its operation and refuses another; the collection's own key is
 * no change; unregistering releases it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ReshardingCatalogTest {
    private static final Namespace NS = new Namespace("rs", "coll");

    @LocalServerPort
    int port;
    @Autowired
    JdbcClient jdbc;
    @Autowired
    ShardedCollectionCatalog collections;
    @Autowired
    ShardingDdlCoordinators coordinators;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(20));

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("config_resharding_catalog_test").forEach((k, v) -> registry.add(k, () -> v));
    }

    @BeforeEach
    void oneShardedCollectionOnShardB() {
        jdbc.sql("DELETE FROM sharding_ddl_coordinators").update();
        jdbc.sql("DELETE FROM collections").update();
        jdbc.sql("INSERT INTO shards (id, host) VALUES ('shardA', 'http://localhost:1'), ('shardB', 'http://localhost:2') ON CONFLICT DO NOTHING").update();
        CatalogFixtures.shardedOnOneChunk(collections, NS.full(), "shardB");
    }

    @Test
    void registeringHoldsTheCollectionAndFixesTheParticipantsUntilUnregistered() {
        UUID operation = UUID.randomUUID();
        BsonDocument reply = register(operation, "y", false);
        assertThat(reply.getBoolean("noChange").getValue()).isFalse();
        assertThat(names(reply, "donorShards")).containsExactly("shardB");
        assertThat(names(reply, "recipientShards")).containsExactly("shardA", "shardB");
        // the coordinator repeats it after a restart
        assertThat(names(register(operation, "y", false), "donorShards")).containsExactly("shardB");

        assertCode(() -> register(UUID.randomUUID(), "z", false), ErrorCode.ConflictingOperationInProgress);
        assertCode(() -> collections.refine(NS.full(), ShardKeyPattern.of(new BsonDocument("x", new BsonInt32(1)).append("w", new BsonInt32(1)))),
                ErrorCode.ConflictingOperationInProgress);
        assertCode(() -> coordinators.startDropCollection(NS), ErrorCode.ConflictingOperationInProgress);
        assertThat(coordinators.listUnfinished()).isEmpty(); // the resharding service runs it, not the config service

        admin(new BsonDocument("_configsvrReshardingUnregister", new BsonString(NS.full())).append("reshardingUUID", uuid(operation)));
        admin(new BsonDocument("_configsvrReshardingUnregister", new BsonString(NS.full())).append("reshardingUUID", uuid(operation)));
        assertThat(jdbc.sql("SELECT count(*) FROM sharding_ddl_coordinators").query(Long.class).single()).isZero();
        assertThat(coordinators.startDropCollection(NS).created()).isTrue();
    }

    @Test
    void theCollectionsOwnKeyIsNoChangeUnlessRedistributionIsForced() {
        assertThat(register(UUID.randomUUID(), "x", false).getBoolean("noChange").getValue()).isTrue();
        assertThat(jdbc.sql("SELECT count(*) FROM sharding_ddl_coordinators").query(Long.class).single()).isZero();

        BsonDocument forced = register(UUID.randomUUID(), "x", true);
        assertThat(forced.getBoolean("noChange").getValue()).isFalse();
        assertThat(names(forced, "recipientShards")).containsExactly("shardA", "shardB");
    }

    @Test
    void theCommitSwapsUuidEpochKeyAndChunksInOneTransactionOnceAndOnlyForTheHoldingOperation() {
        UUID operation = UUID.randomUUID();
        ShardedCollection before = collections.find(NS.full()).orElseThrow();
        BsonDocument commit = new BsonDocument("_configsvrReshardingCommit", new BsonString(NS.full())).append("reshardingUUID", uuid(operation))
                .append("key", new BsonDocument("y", new BsonInt32(1)))
                .append("newChunks", new BsonArray(List.of(
                        BsonDocument.parse("{recipientShardId: 'shardA', min: {y: {$minKey: 1}}, max: {y: 10}}"),
                        BsonDocument.parse("{recipientShardId: 'shardB', min: {y: 10}, max: {y: {$maxKey: 1}}}"))));
        assertCode(() -> admin(commit), ErrorCode.ConflictingOperationInProgress); // not registered: not this operation's

        register(operation, "y", false);
        admin(commit);
        admin(commit); // the coordinator retries its commit until it succeeds

        ShardedCollection after = collections.find(NS.full()).orElseThrow();
        assertThat(after.uuid()).isEqualTo(operation);
        assertThat(after.key().pattern()).isEqualTo(new BsonDocument("y", new BsonInt32(1)));
        assertThat(after.epoch()).isNotEqualTo(before.epoch());
        assertThat(jdbc.sql("SELECT count(*) FROM chunks WHERE collection_uuid = ?").param(before.uuid()).query(Long.class).single()).isZero();
        assertThat(jdbc.sql("SELECT shard FROM chunks WHERE collection_uuid = ? ORDER BY shard").param(operation).query(String.class).list())
                .containsExactly("shardA", "shardB");
        admin(new BsonDocument("_configsvrReshardingUnregister", new BsonString(NS.full())).append("reshardingUUID", uuid(operation)));
    }

    @Test
    void anUnshardedCollectionIsNamespaceNotSharded() {
        assertCode(() -> admin(new BsonDocument("_configsvrReshardingRegister", new BsonString("rs.other")).append("reshardingUUID", uuid(UUID.randomUUID()))
                .append("key", new BsonDocument("y", new BsonInt32(1)))), ErrorCode.NamespaceNotSharded);
    }

    private BsonDocument register(UUID operation, String field, boolean force) {
        return admin(new BsonDocument("_configsvrReshardingRegister", new BsonString(NS.full())).append("reshardingUUID", uuid(operation))
                .append("key", new BsonDocument(field, new BsonInt32(1))).append("numInitialChunks", new BsonInt32(2))
                .append("forceRedistribution", BsonBoolean.valueOf(force)));
    }

    private BsonDocument admin(BsonDocument command) {
        return client.runChecked("config", "http://localhost:" + port, "admin", command);
    }

    private static BsonBinary uuid(UUID id) {
        return new BsonBinary(id, UuidRepresentation.STANDARD);
    }

    private static List<String> names(BsonDocument reply, String field) {
        return reply.getArray(field).stream().map(BsonValue::asString).map(BsonString::getValue).toList();
    }

    private static void assertCode(Runnable call, ErrorCode code) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(code));
    }
}
