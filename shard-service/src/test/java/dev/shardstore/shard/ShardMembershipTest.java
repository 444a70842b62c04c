package dev.shardstore.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.support.testing.TestClusterKey;
import dev.shardstore.transport.http.CommandClient;
import dev.shardstore.transport.membership.ClusterKey;
import dev.shardstore.transport.membership.MemberToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A shard with a cluster key (docs/architecture.md "Security", "Inside the cluster"), called directly as a hostile
 * client would: without the key or with a wrong one, over HTTP and then over the command port its reply names, an
 * internal command and a write are refused with Unauthorized (13) and nothing is written; a member's forged
 * {@code $clusterTime} is refused and the clock stays; a body over 48 MB is refused before it is read. A member's
 * commands run, over both transports, after every refusal.
 */
class ShardMembershipTest extends ShardIntegrationTest {
    private static final String DB = "shard_membership";
    private static final TestClusterKey KEY = TestClusterKey.create("shard-membership");

    private final CommandClient member = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(30), null, KEY.key());
    private final CommandClient anonymous = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(30));
    private final CommandClient impostor = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(30), null,
            ClusterKey.of(ClusterKey.generate(new SecureRandom())));

    @Autowired
    private LogicalClock clock;

    @DynamicPropertySource
    static void clusterKey(DynamicPropertyRegistry registry) {
        // A database of its own: this context (another property, so another Spring context) would otherwise write the
        // oplog beside the shared test context, still alive with its own oplog clock, and the two hand out the same
        // times. The base class's spring.datasource.url wins over a subclass's, so the pool's own URL says it.
        registry.add("spring.datasource.hikari.jdbc-url", () -> EmbeddedInfra.shared().jdbcUrl("shard_membership_it"));
        registry.add("shardstore.security.cluster-key-file", () -> KEY.file().toString());
    }

    /** Each test's own collection: the tests share the shard's database. */
    private String collection = "c";

    @BeforeEach
    void name(TestInfo test) {
        collection = test.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void close() {
        member.close();
        anonymous.close();
        impostor.close();
    }

    @Test
    void aCallerWithoutTheKeyRunsNothingOverHttpOrTheCommandPort() {
        assertThat(ok(insert(1))).isEqualTo(1);
        for (int call = 0; call < 2; call++) { // the first over HTTP, the second on the command port the HTTP reply named
            assertThat(anonymous.run("shard", url(), DB, insert(100 + call)).getInt32("code").getValue()).isEqualTo(ErrorCode.Unauthorized.code());
            assertThat(anonymous.run("shard", url(), "admin", new BsonDocument("_recvChunkStart", new BsonString(DB + ".c")))
                    .getInt32("code").getValue()).isEqualTo(ErrorCode.Unauthorized.code());
        }
        assertThat(count()).isEqualTo(1);
        assertThat(ok(insert(2))).as("members are still served").isEqualTo(1);
        assertThat(count()).isEqualTo(2);
    }

    @Test
    void aCallerWithAWrongKeyRunsNothingOverHttpOrTheCommandPort() {
        BsonDocument overHttp = impostor.run("shard", url(), DB, insert(200));
        assertThat(overHttp.getInt32("code").getValue()).isEqualTo(ErrorCode.Unauthorized.code());
        assertThat(overHttp.containsKey(ClusterTimeGossip.CLUSTER_TIME)).as("no signed time for a non-member").isFalse();
        assertThatThrownBy(() -> impostor.run("shard", url(), DB, insert(201)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.Unauthorized));

        assertThat(count()).isZero();
        assertThat(ok(insert(3))).isEqualTo(1);
        assertThat(ok(insert(4))).as("again, on the command port").isEqualTo(1);
        assertThat(count()).isEqualTo(2);
    }

    @Test
    void aMembersForgedClusterTimeIsRefusedAndTheClockStays() {
        BsonTimestamp before = clock.clusterTime();
        BsonTimestamp ahead = new BsonTimestamp(before.getTime() + 86_400, 1);
        BsonDocument forged = insert(300).append(ClusterTimeGossip.CLUSTER_TIME, new BsonDocument("clusterTime", ahead)
                .append("signature", new BsonDocument("hash", new BsonBinary(new byte[20])).append("keyId", new BsonInt64(4242))));

        BsonDocument reply = member.run("shard", url(), DB, forged);

        assertThat(reply.getInt32("code").getValue()).isIn(ErrorCode.KeyNotFound.code(), ErrorCode.TimeProofMismatch.code());
        assertThat(Long.compareUnsigned(clock.clusterTime().getValue(), ahead.getValue())).as("the clock did not move").isNegative();
        assertThat(count()).isZero();
    }

    @Test
    void aBodyOverTheLimitIsRefusedBeforeItIsReadAndTheShardKeepsServing() throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + InternalApi.commandPath(DB) + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/bson\r\n"
                    + InternalApi.MEMBER_TOKEN_HEADER + ": " + new MemberToken(KEY.key(), Clock.systemUTC()).current()
                    + "\r\nContent-Length: 48000001\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[1024]);
            out.flush();
            InputStream in = socket.getInputStream();
            String status = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
            assertThat(status).isEqualTo("HTTP/1.1 413");
        }
        assertThat(count()).isZero();
        assertThat(ok(insert(5))).isEqualTo(1);
    }

    private String url() {
        return "http://127.0.0.1:" + port;
    }

    private int ok(BsonDocument command) {
        return member.run("shard", url(), DB, command).getNumber("ok").intValue();
    }

    private long count() {
        BsonDocument reply = member.runChecked("shard", url(), DB, new BsonDocument("count", new BsonString(collection)));
        return reply.getNumber("n").longValue();
    }

    private BsonDocument insert(int id) {
        return new BsonDocument("insert", new BsonString(collection)).append("documents", new BsonArray(List.of(new BsonDocument("_id", new BsonInt32(id)))));
    }
}
