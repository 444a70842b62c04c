package dev.shardstore.router.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoClientSettings;
import com.mongodb.MongoException;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.contracts.clock.ClusterTimeSigner;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.router.testing.NoCursors;
import dev.shardstore.router.command.ClientCommands;
import dev.shardstore.router.security.UserDirectory;
import dev.shardstore.router.transaction.RouterTransactions;
import dev.shardstore.support.command.CommandHandler;
import dev.shardstore.support.command.CommandRegistry;
import dev.shardstore.support.membership.NetProperties;
import dev.shardstore.support.security.ClientSecurityProperties;
import dev.shardstore.support.session.LogicalSessionCache;
import dev.shardstore.support.session.LogicalSessionCacheProperties;
import dev.shardstore.transport.http.CommandClient;
import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.OpMsg;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.awaitility.Awaitility;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on the router's wire listener ({@code shardstore.router.wire.tls.*}, MongoDB's {@code net.tls} options) with
 * the official Java driver and a raw plain socket: each mode admits what MongoDB's does, a CA file makes client
 * certificates required (or optional), and a refused connection runs nothing. (A client holding only a certificate of
 * another CA presents none, since the listener names the CAs it accepts; it is refused as one without a certificate.) The certificates are made by the test
 * ({@link TestCertificates}).
 */
class WireTlsTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AtomicInteger pings = new AtomicInteger();
    private final CommandRegistry registry = new CommandRegistry(List.of(CommandHandler.of("ping", (db, cmd) -> {
        pings.incrementAndGet();
        return Replies.ok();
    })));
    private final LogicalSessionCache sessions = new LogicalSessionCache(new CommandClient(Duration.ofSeconds(1), Duration.ofSeconds(1)),
            new LogicalSessionCacheProperties(true, "http://127.0.0.1:9", Duration.ofHours(1), Duration.ofMinutes(30)), Clock.systemUTC());
    private final TestCertificates.Identity authority = TestCertificates.authority("test CA");
    private final TestCertificates.Identity serverIdentity = TestCertificates.leaf("router", authority);
    @TempDir
    Path dir;
    private WireServer server;

    private WireTlsProperties tls(TlsMode mode, boolean caFile, boolean allowWithoutCertificates) {
        return new WireTlsProperties(mode, TestCertificates.writeCertificateKeyFile(serverIdentity, dir.resolve("router.pem")),
                caFile ? TestCertificates.writeCaFile(authority, dir.resolve("ca.pem")) : null, allowWithoutCertificates);
    }

    private int start(WireTlsProperties tls) {
        server = new WireServer(new WireProperties(true, 0, "127.0.0.1", 100, 100, Duration.ofMinutes(1)), tls,
                new ClientCommands(registry, meters, new ClusterTimeGossip(new LogicalClock(LogicalClock.DEFAULT_MAX_DRIFT), ClusterTimeSigner.UNSIGNED),
                        sessions, new NoCursors(), new RouterTransactions(sessions), txn -> { }), meters, new NetProperties(List.of()),
                new UserDirectory(command -> Replies.ok(), new ClientSecurityProperties(ClientSecurityProperties.Mode.disabled,
                        Duration.ofSeconds(1), Duration.ofHours(1))));
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

    /** A ping through the official driver, over TLS with {@code context} (null: plain). */
    private static void ping(int port, SSLContext context) {
        MongoClientSettings settings = MongoClientSettings.builder()
                .applyToClusterSettings(b -> b.hosts(List.of(new ServerAddress("127.0.0.1", port))).serverSelectionTimeout(2, TimeUnit.SECONDS))
                .applyToSocketSettings(b -> b.connectTimeout(2, TimeUnit.SECONDS))
                .applyToSslSettings(b -> b.enabled(context != null).context(context))
                .build();
        try (MongoClient client = MongoClients.create(settings)) {
            assertThat(client.getDatabase("admin").runCommand(new Document("ping", 1)).get("ok", Number.class).doubleValue()).isEqualTo(1.0);
        }
    }

    private SSLContext trusting() {
        return TestCertificates.clientContext(authority, null);
    }

    /** Whether a plain OP_MSG ping on a raw socket is answered (false: the listener closed the connection). */
    private static boolean plainAnswers(int port) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(OpMsg.of(new BsonDocument("ping", new BsonInt32(1)).append("$db", new BsonString("admin"))).encode(7, 0));
            return Frame.read(socket.getInputStream(), 1 << 26).isPresent();
        } catch (IOException e) {
            return false;
        }
    }

    private double closed(String reason) {
        Counter counter = meters.find("shardstore.router.wire.connections.closed").tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void requireTlsServesTlsClientsAndClosesAPlainOneBeforeReadingIt() throws Exception {
        int port = start(tls(TlsMode.REQUIRE_TLS, false, false));
        ping(port, trusting());
        assertThat(pings).hasValue(1);

        assertThat(plainAnswers(port)).isFalse();
        assertThatThrownBy(() -> ping(port, null)).isInstanceOf(MongoException.class);
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> closed("tls-required") >= 2);
        assertThat(pings).as("nothing a plain client sent ran").hasValue(1);
        ping(port, trusting());
        assertThat(pings).as("the listener keeps serving").hasValue(2);
    }

    @Test
    void allowTlsAndPreferTlsServePlainAndTlsClientsAlike() throws Exception {
        for (TlsMode mode : List.of(TlsMode.ALLOW_TLS, TlsMode.PREFER_TLS)) {
            int port = start(tls(mode, false, false));
            ping(port, trusting());
            ping(port, null);
            assertThat(plainAnswers(port)).isTrue();
            server.stop();
        }
        assertThat(pings).hasValue(6);
    }

    @Test
    void aClientThatDoesNotTrustTheListenersCertificateIsRefusedByItsOwnHandshake() {
        int port = start(tls(TlsMode.REQUIRE_TLS, false, false));
        SSLContext trustsAnother = TestCertificates.clientContext(TestCertificates.authority("another CA"), null);
        assertThatThrownBy(() -> ping(port, trustsAnother)).isInstanceOf(MongoException.class);
        assertThat(pings).hasValue(0);
    }

    @Test
    void withoutTlsAHandshakeIsNotUnderstood() throws Exception {
        int port = start(WireTlsProperties.DISABLED);
        assertThatThrownBy(() -> ping(port, trusting())).isInstanceOf(MongoException.class);
        assertThat(pings).hasValue(0);
        assertThat(plainAnswers(port)).isTrue();
    }

    @Test
    void aCaFileRequiresAClientCertificateItSigned() {
        int port = start(tls(TlsMode.REQUIRE_TLS, true, false));
        ping(port, TestCertificates.clientContext(authority, TestCertificates.leaf("app", authority)));
        assertThat(pings).hasValue(1);

        assertThatThrownBy(() -> ping(port, trusting())).as("no certificate").isInstanceOf(MongoException.class);
        TestCertificates.Identity stranger = TestCertificates.authority("stranger CA");
        assertThatThrownBy(() -> ping(port, TestCertificates.clientContext(authority, TestCertificates.leaf("intruder", stranger))))
                .as("a certificate another CA signed").isInstanceOf(MongoException.class);
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> closed("tls-handshake") >= 2);
        assertThat(pings).hasValue(1);
    }

    @Test
    void allowConnectionsWithoutCertificatesAdmitsClientsWithAndWithoutOne() {
        int port = start(tls(TlsMode.REQUIRE_TLS, true, true));
        ping(port, trusting());
        ping(port, TestCertificates.clientContext(authority, TestCertificates.leaf("app", authority)));
        assertThat(pings).hasValue(2);
    }

    @Test
    void aKeyWhoseSignaturesDoNotVerifyFailsTheStartRatherThanEveryHandshake() {
        WireTlsProperties sec1 = new WireTlsProperties(TlsMode.REQUIRE_TLS,
                TestCertificates.writeCertificateKeyFileSec1(serverIdentity, dir.resolve("sec1.pem")), null, false);
        assertThatThrownBy(() -> start(sec1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("openssl pkcs8").hasMessageContaining("shardstore.router.wire.tls.certificate-key-file");
    }

    @Test
    void aTlsModeWithoutACertificateIsRefusedAtStartNamingTheProperty() {
        assertThatThrownBy(() -> new WireTlsProperties(TlsMode.REQUIRE_TLS, null, null, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requireTLS").hasMessageContaining("shardstore.router.wire.tls.certificate-key-file");
    }
}
