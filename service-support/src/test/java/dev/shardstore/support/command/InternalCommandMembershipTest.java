package dev.shardstore.support.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.contracts.clock.HmacClusterTimeSigner;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.contracts.clock.SigningKey;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.transport.membership.ClusterKey;
import dev.shardstore.transport.membership.MemberHandshake;
import dev.shardstore.transport.membership.MemberToken;
import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.OpMsg;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * Both internal transports of a process with a cluster key: over the command port (a real socket) a connection runs
 * nothing before it completes the membership handshake, and one whose key is wrong never does; over HTTP a request
 * without a valid member token runs nothing, and neither does a body over the limit. Refusals are Unauthorized (13) or
 * BSONObjectTooLarge (10334) without a cluster time, and the connection and the endpoint keep serving. A member's
 * {@code $clusterTime} with a forged signature is refused and leaves the clock where it was.
 */
class InternalCommandMembershipTest {
    private static final ClusterKey KEY = ClusterKey.of(ClusterKey.generate(new SecureRandom()));
    private static final ClusterKey WRONG = ClusterKey.of(ClusterKey.generate(new SecureRandom()));
    private static final SigningKey SIGNING = new SigningKey(7, new byte[SigningKey.LENGTH], new BsonTimestamp(Integer.MAX_VALUE, 0));

    private final AtomicInteger runs = new AtomicInteger();
    private final LogicalClock clock = new LogicalClock(LogicalClock.DEFAULT_MAX_DRIFT);
    private final InternalCommands commands = new InternalCommands(new CommandRegistry(List.of(CommandHandler.of("write", (db, command) -> {
        runs.incrementAndGet();
        return new BsonDocument("ok", new BsonInt32(1));
    }))), new ClusterTimeGossip(clock, new HmacClusterTimeSigner(HmacClusterTimeSigner.Keys.over(() -> List.of(SIGNING))), true));
    private final InternalCommandListener listener = InternalCommandListener.start(commands, KEY, List.of(InetAddress.getLoopbackAddress()), 0)
            .orElseThrow();
    private int requestIds;

    @AfterEach
    void close() {
        listener.close();
    }

    @Test
    void aCommandPortConnectionRunsNothingBeforeTheHandshakeAndStaysUsable() throws IOException {
        try (Socket socket = connect()) {
            for (int i = 0; i < 2; i++) {
                assertRefused(exchange(socket, write()), ErrorCode.Unauthorized);
            }
            assertThat(runs).hasValue(0);

            MemberHandshake.authenticate(KEY, request -> exchange(socket, request.append("$db", new BsonString(MemberHandshake.DB))));
            assertThat(exchange(socket, write()).getNumber("ok").intValue()).isEqualTo(1);
            assertThat(runs).hasValue(1);
        }
    }

    @Test
    void aConnectionWithTheWrongKeyIsRefusedAndStillRunsNothing() throws IOException {
        try (Socket socket = connect()) {
            assertThatThrownBy(() -> MemberHandshake.authenticate(WRONG, request -> exchange(socket, request.append("$db", new BsonString("admin")))))
                    .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.Unauthorized));
            assertRefused(exchange(socket, write()), ErrorCode.Unauthorized);
            assertThat(runs).hasValue(0);
        }
        try (Socket member = connect()) {
            MemberHandshake.authenticate(KEY, request -> exchange(member, request.append("$db", new BsonString("admin"))));
            assertThat(exchange(member, write()).getNumber("ok").intValue()).as("the listener still serves members").isEqualTo(1);
        }
    }

    @Test
    void aMembersClusterTimeWithAForgedSignatureIsRefusedAndTheClockStays() throws IOException {
        BsonTimestamp before = clock.clusterTime();
        BsonTimestamp ahead = new BsonTimestamp(before.getTime() + 3600, 1);
        try (Socket socket = connect()) {
            MemberHandshake.authenticate(KEY, request -> exchange(socket, request.append("$db", new BsonString("admin"))));

            assertRefused(exchange(socket, write().append(ClusterTimeGossip.CLUSTER_TIME, clusterTime(ahead, 7))), ErrorCode.TimeProofMismatch);
            assertRefused(exchange(socket, write().append(ClusterTimeGossip.CLUSTER_TIME, clusterTime(ahead, 99))), ErrorCode.KeyNotFound);
            assertThat(runs).hasValue(0);
            assertThat(Long.compareUnsigned(clock.clusterTime().getValue(), ahead.getValue())).as("the clock did not move").isNegative();

            // a member without a key yet signs with the dummy signature, which a member may send
            assertThat(exchange(socket, write().append(ClusterTimeGossip.CLUSTER_TIME, clusterTime(ahead, 0))).getNumber("ok").intValue()).isEqualTo(1);
            assertThat(clock.clusterTime()).isEqualTo(ahead);
        }
    }

    @Test
    void anHttpRequestWithoutAValidMemberTokenRunsNothing() throws IOException {
        InternalCommandServlet servlet = new InternalCommandServlet(commands, () -> -1, new MemberToken(KEY, Clock.systemUTC()), 1024);
        MemberToken wrong = new MemberToken(WRONG, Clock.systemUTC());
        MemberToken stale = new MemberToken(KEY, Clock.offset(Clock.systemUTC(), MemberToken.VALIDITY.plus(Duration.ofMinutes(1)).negated()));

        assertRefused(post(servlet, null, BsonBytes.encode(write()), true), ErrorCode.Unauthorized);
        assertRefused(post(servlet, wrong.current(), BsonBytes.encode(write()), true), ErrorCode.Unauthorized);
        assertRefused(post(servlet, stale.current(), BsonBytes.encode(write()), true), ErrorCode.Unauthorized);
        assertRefused(post(servlet, "1.2.3", BsonBytes.encode(write()), true), ErrorCode.Unauthorized);
        assertThat(runs).hasValue(0);

        BsonDocument ok = post(servlet, new MemberToken(KEY, Clock.systemUTC()).current(), BsonBytes.encode(write()), true);
        assertThat(ok.getNumber("ok").intValue()).isEqualTo(1);
        assertThat(runs).hasValue(1);
    }

    @Test
    void anHttpBodyOverTheLimitRunsNothingWithOrWithoutItsLength() throws IOException {
        InternalCommandServlet servlet = new InternalCommandServlet(commands, () -> -1, null, 1024);
        byte[] large = BsonBytes.encode(write().append("pad", new BsonBinary(new byte[2000])));

        assertRefused(post(servlet, null, large, true, 413), ErrorCode.BSONObjectTooLarge);
        assertRefused(post(servlet, null, large, false, 413), ErrorCode.BSONObjectTooLarge);
        assertThat(runs).hasValue(0);
        assertThat(post(servlet, null, BsonBytes.encode(write()), false).getNumber("ok").intValue()).isEqualTo(1);
    }

    private static BsonDocument post(InternalCommandServlet servlet, @Nullable String token, byte[] body, boolean withLength) throws IOException {
        return post(servlet, token, body, withLength, 200);
    }

    private static BsonDocument post(InternalCommandServlet servlet, @Nullable String token, byte[] body, boolean withLength, int status)
            throws IOException {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/internal/v1/databases/db/command") {
            @Override
            public long getContentLengthLong() {
                return withLength ? super.getContentLengthLong() : -1;
            }
        };
        request.setPathInfo("/db/command");
        request.setContentType(InternalApi.MEDIA_TYPE_BSON);
        request.setContent(body);
        if (token != null) {
            request.addHeader(InternalApi.MEMBER_TOKEN_HEADER, token);
        }
        MockHttpServletResponse response = new MockHttpServletResponse();
        servlet.doPost(request, response);
        assertThat(response.getStatus()).isEqualTo(status);
        return BsonBytes.decode(response.getContentAsByteArray());
    }

    private static void assertRefused(BsonDocument reply, ErrorCode code) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isZero();
        assertThat(reply.getInt32("code").getValue()).as(reply.toJson()).isEqualTo(code.code());
        if (code != ErrorCode.TimeProofMismatch && code != ErrorCode.KeyNotFound) {
            assertThat(reply.containsKey(ClusterTimeGossip.CLUSTER_TIME)).as("no cluster time for a non-member").isFalse();
        }
    }

    private static BsonDocument clusterTime(BsonTimestamp time, long keyId) {
        return new BsonDocument("clusterTime", time).append("signature",
                new BsonDocument("hash", new BsonBinary(new byte[20])).append("keyId", new BsonInt64(keyId)));
    }

    private static BsonDocument write() {
        return new BsonDocument("write", new BsonInt32(1)).append("$db", new BsonString("db"));
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), listener.port());
        socket.setSoTimeout(10_000);
        return socket;
    }

    private BsonDocument exchange(Socket socket, BsonDocument command) throws IOException {
        int id = ++requestIds;
        socket.getOutputStream().write(OpMsg.of(command).encode(id, 0));
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        Optional<Frame> frame = Frame.read(in, 1 << 24);
        assertThat(frame).isPresent();
        assertThat(frame.get().responseTo()).isEqualTo(id);
        return OpMsg.parse(frame.get()).body();
    }
}
