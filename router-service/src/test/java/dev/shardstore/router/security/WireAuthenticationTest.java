package dev.shardstore.router.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoCredential;
import com.mongodb.MongoSecurityException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.contracts.clock.ClusterTimeSigner;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.router.testing.NoCursors;
import dev.shardstore.router.command.ClientCommands;
import dev.shardstore.router.transaction.RouterTransactions;
import dev.shardstore.router.wire.TestCertificates;
import dev.shardstore.router.wire.TlsMode;
import dev.shardstore.router.wire.WireProperties;
import dev.shardstore.router.wire.WireServer;
import dev.shardstore.router.wire.WireTlsProperties;
import dev.shardstore.support.membership.NetProperties;
import dev.shardstore.support.command.CommandHandler;
import dev.shardstore.support.command.CommandRegistry;
import dev.shardstore.support.operation.OperationRegistry;
import dev.shardstore.support.security.CommandAuthorizer;
import dev.shardstore.transport.http.CommandClient;
import dev.shardstore.support.session.LogicalSessionCache;
import dev.shardstore.support.session.LogicalSessionCacheProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official Java driver against the router's wire listener with authorization on: SCRAM-SHA-256 through
 * {@code mongodb://user:pw@host/?authSource=admin}, wrong passwords, unauthenticated and under-privileged commands, the
 * localhost exception, and SCRAM over TLS ({@code requireTLS}). The config service is {@link InMemoryUsers}.
 */
class WireAuthenticationTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final LogicalSessionCache sessions = new LogicalSessionCache(new CommandClient(Duration.ofSeconds(1), Duration.ofSeconds(1)),
            new LogicalSessionCacheProperties(true, "http://127.0.0.1:9", Duration.ofHours(1), Duration.ofMinutes(30)), Clock.systemUTC());
    private final InMemoryUsers users = new InMemoryUsers();
    private final AtomicInteger inserted = new AtomicInteger();
    private UserDirectory directory;
    private ClientCommands commands;
    private WireServer server;

    private void addUser(String name, String password, String role, String roleDb) {
        users.add(name, password, role, roleDb);
    }

    private int start() {
        return start(WireTlsProperties.DISABLED);
    }

    private int start(WireTlsProperties tls) {
        CommandRegistry registry = new CommandRegistry(List.of(
                CommandHandler.of("find", (db, cmd) -> Replies.cursor(true, List.of(), 0, db + "." + cmd.getString("find").getValue())),
                CommandHandler.of("insert", (db, cmd) -> {
                    inserted.addAndGet(cmd.getArray("documents").size());
                    return Replies.ok(new BsonDocument("n", new BsonInt32(cmd.getArray("documents").size())));
                }),
                CommandHandler.of("createUser", (db, cmd) -> {
                    addUser(cmd.getString("createUser").getValue(), cmd.getString("pwd").getValue(), "root", "admin");
                    directory.refresh();
                    return Replies.ok();
                }),
                CommandHandler.of("connectionStatus", (opCtx, db, cmd) ->
                        Replies.ok(new BsonDocument("authInfo", opCtx.caller().principal().authInfo(false))))),
                CommandAuthorizer.ENABLED, new OperationRegistry(System::nanoTime));
        directory = users.directory();
        commands = new ClientCommands(registry, meters, new ClusterTimeGossip(new LogicalClock(LogicalClock.DEFAULT_MAX_DRIFT),
                ClusterTimeSigner.UNSIGNED), sessions, new NoCursors(), new RouterTransactions(sessions), txn -> { });
        server = new WireServer(new WireProperties(true, 0, "127.0.0.1", 100, 100, Duration.ofMinutes(1)), tls, commands, meters,
                new NetProperties(List.of()), directory);
        server.start();
        return server.port();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
        sessions.close();
    }

    private MongoClient client(String credentials, int port) {
        return MongoClients.create("mongodb://" + credentials + "127.0.0.1:" + port + "/?authSource=admin&serverSelectionTimeoutMS=5000");
    }

    @Test
    void theDriverAuthenticatesWithScramSha256AndIsAuthorizedByItsRoles() {
        addUser("reader", "read-pw", "read", "shop");
        addUser("writer", "write-pw", "readWrite", "shop");
        int port = start();
        try (MongoClient reader = client("reader:read-pw@", port); MongoClient writer = client("writer:write-pw@", port)) {
            assertThat(reader.getDatabase("shop").getCollection("orders").find().first()).isNull();
            Document status = reader.getDatabase("admin").runCommand(new Document("connectionStatus", 1));
            assertThat(status.toJson()).contains("\"user\": \"reader\"", "\"role\": \"read\"");
            assertThatThrownBy(() -> reader.getDatabase("shop").getCollection("orders").insertOne(new Document("a", 1)))
                    .hasMessageContaining("not authorized on shop to execute command").hasMessageContaining("insert");
            assertThat(inserted).hasValue(0);

            writer.getDatabase("shop").getCollection("orders").insertOne(new Document("a", 1));
            assertThat(inserted).hasValue(1);
            assertThatThrownBy(() -> writer.getDatabase("crm").getCollection("orders").insertOne(new Document("a", 1)))
                    .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(13));
            assertThat(inserted).hasValue(1);
        }
        assertThat(commands.audit().recent()).as("each connection's SCRAM conversation, none of the CRUD commands")
                .allSatisfy(event -> {
                    assertThat(event.atype()).isEqualTo("authenticate");
                    assertThat(event.result()).isZero();
                    assertThat(event.param().getString("mechanism").getValue()).isEqualTo("SCRAM-SHA-256");
                    assertThat(event.remote().getAddress().isLoopbackAddress()).isTrue();
                })
                .extracting(event -> event.users().getFirst().toString()).contains("reader@admin", "writer@admin");
    }

    @Test
    void theDriverAuthenticatesWithScramSha256OverTls(@TempDir Path dir) {
        addUser("writer", "write-pw", "readWrite", "shop");
        TestCertificates.Identity authority = TestCertificates.authority("test CA");
        int port = start(new WireTlsProperties(TlsMode.REQUIRE_TLS,
                TestCertificates.writeCertificateKeyFile(TestCertificates.leaf("router", authority), dir.resolve("router.pem")), null, false));
        MongoClientSettings settings = MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString("mongodb://writer:write-pw@127.0.0.1:" + port
                        + "/?authSource=admin&authMechanism=SCRAM-SHA-256&tls=true&serverSelectionTimeoutMS=5000"))
                .applyToSslSettings(b -> b.context(TestCertificates.clientContext(authority, null)))
                .build();
        try (MongoClient writer = MongoClients.create(settings)) {
            writer.getDatabase("shop").getCollection("orders").insertOne(new Document("a", 1));
            assertThat(inserted).hasValue(1);
            assertThat(writer.getDatabase("admin").runCommand(new Document("connectionStatus", 1)).toJson()).contains("\"user\": \"writer\"");
        }
        try (MongoClient wrong = MongoClients.create(MongoClientSettings.builder(settings)
                .credential(MongoCredential.createScramSha256Credential("writer", "admin", "wrong".toCharArray())).build())) {
            assertThatThrownBy(() -> wrong.getDatabase("shop").getCollection("orders").insertOne(new Document("a", 2)))
                    .isInstanceOf(MongoSecurityException.class);
        }
        assertThat(inserted).hasValue(1);
    }

    @Test
    void aWrongPasswordOrUnknownUserIsAuthenticationFailedAndNoCredentialsIsUnauthorized() {
        addUser("alice", "right", "root", "admin");
        int port = start();
        for (String credentials : List.of("alice:wrong@", "nobody:right@")) {
            try (MongoClient wrong = client(credentials, port)) {
                assertThatThrownBy(() -> wrong.getDatabase("shop").getCollection("orders").find().first())
                        .hasRootCauseInstanceOf(MongoCommandException.class)
                        .satisfies(e -> {
                            MongoCommandException cause = (MongoCommandException) e.getCause();
                            assertThat(cause.getErrorCode()).isEqualTo(18);
                            assertThat(cause.getErrorMessage()).isEqualTo("Authentication failed.");
                        });
            } catch (MongoSecurityException e) {
                assertThat(((MongoCommandException) e.getCause()).getErrorCode()).isEqualTo(18);
            }
        }
        assertThat(commands.audit().recent()).extracting(event -> event.result()).containsOnly(18);
        assertThat(commands.audit().recent()).extracting(event -> event.param().getString("user").getValue()).contains("alice", "nobody");
        try (MongoClient anonymous = client("", port)) {
            assertThatThrownBy(() -> anonymous.getDatabase("shop").getCollection("orders").find().first())
                    .isInstanceOfSatisfying(MongoCommandException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(13);
                        assertThat(e.getErrorMessage()).isEqualTo("command find requires authentication");
                    });
        }
    }

    @Test
    void theLocalhostExceptionCreatesTheFirstUserOnly() {
        int port = start();
        try (MongoClient local = client("", port)) {
            assertThatThrownBy(() -> local.getDatabase("shop").getCollection("orders").insertOne(new Document("a", 1)))
                    .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorMessage()).contains("only createUser"));
            local.getDatabase("admin").runCommand(new Document("createUser", "admin").append("pwd", "first").append("roles", List.of("root")));
            assertThatThrownBy(() -> local.getDatabase("admin").runCommand(new Document("createUser", "second").append("pwd", "x")
                    .append("roles", List.of())))
                    .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorMessage()).contains("requires authentication"));
        }
        assertThat(inserted).hasValue(0);
        try (MongoClient admin = client("admin:first@", port)) {
            admin.getDatabase("shop").getCollection("orders").insertOne(new Document("a", 1));
        }
        assertThat(inserted).hasValue(1);
    }
}
