package dev.shardstore.router.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.router.query.StubShard;
import dev.shardstore.router.testing.StubPeer;
import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.MalformedMessageException;
import dev.shardstore.transport.wire.OpCode;
import dev.shardstore.transport.wire.OpMsg;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.io.BasicOutputBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The wire protocol on the router's real Spring context, against a stub config service and one stub shard (s0, the
 * primary of database {@code db}, holding the unsharded collection {@code db.c}): the handshake both ways, commands
 * answering exactly as REST does, cursors shared between the two front ends, {@code moreToCome}, compression, error
 * replies that keep the connection, and a seeded fuzz of 10,000 malformed frames after which the router still serves.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class WireProtocolServerTest {
    private static final BsonTimestamp TS = new BsonTimestamp(7, 1);
    private static final StubShard S0 = new StubShard("s0");
    private static final StubPeer CONFIG = new StubPeer((db, cmd) -> config(cmd));

    static {
        Random random = new Random(5);
        for (int i = 0; i < 40; i++) {
            S0.documents.add(new BsonDocument("_id", new BsonInt32(i)).append("x", new BsonInt32(random.nextInt(100)))
                    .append("g", new BsonString(String.valueOf((char) ('a' + random.nextInt(3))))));
        }
    }

    private static BsonDocument config(BsonDocument cmd) {
        return switch (cmd.getFirstKey()) {
            case "_configsvrGetDatabase" -> cmd.getString("_configsvrGetDatabase").getValue().equals("db")
                    ? Replies.ok(new BsonDocument("database", new BsonDocument("_id", new BsonString("db")).append("primary", new BsonString("s0"))
                            .append("version", new DatabaseVersion(UUID.randomUUID(), 1, TS).toBson())))
                    : ErrorReplies.errorReply(ErrorCode.NamespaceNotFound, "no database", new BsonDocument());
            case "listShards" -> Replies.ok(new BsonDocument("shards", new BsonArray(List.of(
                    new BsonDocument("_id", new BsonString("s0")).append("host", new BsonString(S0.peer.url()))))));
            case "_configsvrGetRoutingTable" -> Replies.ok(new BsonDocument("collection", BsonNull.VALUE).append("chunks", new BsonArray()));
            default -> throw new IllegalArgumentException("the stub config service does not know " + cmd.getFirstKey());
        };
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
        S0.peer.close();
        CONFIG.close();
    }

    @LocalServerPort
    int httpPort;
    @Autowired
    WireServer wire;
    @Autowired
    MeterRegistry meters;

    private final HttpClient http = HttpClient.newHttpClient();

    private BsonDocument rest(String db, BsonDocument command) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + httpPort + "/v1/databases/" + db + "/command"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ExtendedJson.toJson(command))).build(), HttpResponse.BodyHandlers.ofString());
        return ExtendedJson.parse(response.body());
    }

    /** A reply as REST renders it, so both front ends' replies compare field by field with the same number types. */
    private static BsonDocument asJson(BsonDocument reply) {
        return ExtendedJson.parse(ExtendedJson.toJson(reply));
    }

    private static BsonDocument json(String json) {
        return ExtendedJson.parse(json);
    }

    @Test
    void theLegacyHandshakeIsAnsweredInAnOpReplyAndHelloInAnOpMsg() throws Exception {
        try (WireTestClient client = new WireTestClient(wire.port())) {
            client.send(WireTestClient.opQuery(1, "admin.$cmd", json("{isMaster: 1, helloOk: true, client: {application: {name: 't'}}}")));
            Frame reply = client.read().orElseThrow();
            assertThat(reply.opCode()).isEqualTo(OpCode.OP_REPLY);
            assertThat(reply.responseTo()).isEqualTo(1);
            BsonDocument isMaster = WireTestClient.replyDocument(reply);
            assertThat(isMaster.getBoolean("ismaster").getValue()).isTrue();
            assertThat(isMaster.getString("msg").getValue()).isEqualTo("isdbgrid");
            assertThat(isMaster.getInt32("maxWireVersion").getValue()).isEqualTo(25);
            long connectionId = isMaster.getNumber("connectionId").longValue();

            BsonDocument hello = client.command("admin", json("{hello: 1}"));
            assertThat(hello.getBoolean("isWritablePrimary").getValue()).isTrue();
            assertThat(hello.getNumber("connectionId").longValue()).as("same connection").isEqualTo(connectionId);

            // any other command in an OP_QUERY is refused, as by MongoDB 6.0+
            client.send(WireTestClient.opQuery(2, "db.$cmd", json("{find: 'c'}")));
            BsonDocument refused = WireTestClient.replyDocument(client.read().orElseThrow());
            assertThat(refused.getInt32("code").getValue()).isEqualTo(ErrorCode.UnsupportedOpQueryCommand.code());
            client.send(WireTestClient.opQuery(3, "db.c", json("{}")));
            assertThat(WireTestClient.replyDocument(client.read().orElseThrow()).getString("codeName").getValue()).isEqualTo("UnsupportedOpQueryCommand");
        }
        try (WireTestClient other = new WireTestClient(wire.port())) {
            assertThat(other.command("admin", json("{hello: 1}")).getNumber("connectionId").longValue()).as("a new connection, a new id")
                    .isNotEqualTo(0);
        }
    }

    @Test
    void everyCommandAnswersAsRestDoes() throws Exception {
        List<Map.Entry<String, String>> commands = List.of(
                Map.entry("db", "{find: 'c', filter: {x: {$gte: 30}}, sort: {x: -1, _id: 1}, projection: {g: 0}, batchSize: 1000}"),
                Map.entry("db", "{count: 'c', query: {g: 'a'}}"),
                Map.entry("db", "{distinct: 'c', key: 'g', query: {x: {$lt: 50}}}"),
                Map.entry("db", "{aggregate: 'c', pipeline: [{$match: {g: 'b'}}, {$group: {_id: '$g', n: {$sum: 1}}}], cursor: {}}"),
                Map.entry("admin", "{listShards: 1}"),
                Map.entry("admin", "{buildInfo: 1}"),
                Map.entry("admin", "{getParameter: 1, featureCompatibilityVersion: 1}"),
                Map.entry("admin", "{getCmdLineOpts: 1}"),
                Map.entry("admin", "{getLog: 'startupWarnings'}"),
                Map.entry("admin", "{endSessions: []}"),
                Map.entry("admin", "{connectionStatus: 1}"),
                Map.entry("admin", "{ping: 1}"));
        try (WireTestClient client = new WireTestClient(wire.port())) {
            for (Map.Entry<String, String> entry : commands) {
                BsonDocument viaWire = asJson(client.command(entry.getKey(), json(entry.getValue())));
                assertThat(viaWire.getNumber("ok").doubleValue()).as(entry.getValue() + " → " + viaWire.toJson()).isEqualTo(1.0);
                assertThat(viaWire).as(entry.getValue()).isEqualTo(rest(entry.getKey(), json(entry.getValue())));
            }
            // errors: MongoDB's {ok: 0, errmsg, code, codeName, $clusterTime, operationTime}, the same as the problem body's
            for (Map.Entry<String, String> entry : List.of(Map.entry("db", "{noSuchCommand: 1}"), Map.entry("admin", "{find: 'c'}"),
                    Map.entry("db", "{getLog: 'global'}"), Map.entry("admin", "{atlasVersion: 1}"), Map.entry("db", "{}"))) {
                BsonDocument viaWire = asJson(client.command(entry.getKey(), json(entry.getValue())));
                BsonDocument problem = rest(entry.getKey(), json(entry.getValue()));
                assertThat(viaWire.keySet()).as(entry.getValue()).containsExactly("ok", "errmsg", "code", "codeName", "$clusterTime", "operationTime");
                for (String field : viaWire.keySet()) {
                    assertThat(viaWire.get(field)).as(entry.getValue() + " " + field).isEqualTo(problem.get(field));
                }
            }
        }
        assertThat(meters.find("shardstore.router.command").tags("transport", "wire", "command", "find", "outcome", "ok").timer())
                .isNotNull();
        assertThat(meters.find("shardstore.router.command").tags("transport", "rest", "command", "find").timer()).isNotNull();
        assertThat(meters.find("shardstore.router.command").tags("transport", "wire", "command", "unknown", "outcome", "error").timer())
                .as("unknown names are not tag values").isNotNull();
        assertThat(meters.find("shardstore.router.wire.messages").tags("opcode", "OP_MSG").timer()).isNotNull();
        assertThat(meters.find("shardstore.router.wire.connections").gauge()).isNotNull();
    }

    @Test
    void aDocumentSequenceIsFoldedIntoTheCommand() throws Exception {
        try (WireTestClient client = new WireTestClient(wire.port())) {
            int id = WireTestClient.nextId();
            client.send(new OpMsg(0, json("{aggregate: 'c', cursor: {}, $db: 'db'}"),
                    Map.of("pipeline", List.of(json("{$match: {g: 'c'}}"), json("{$count: 'n'}")))).encode(id, 0));
            BsonDocument reply = OpMsg.parse(client.read().orElseThrow()).body();
            long expected = S0.documents.stream().filter(d -> d.getString("g").getValue().equals("c")).count();
            assertThat(reply.getDocument("cursor").getArray("firstBatch")).containsExactly(new BsonDocument("n", new BsonInt32((int) expected)));
        }
    }

    @Test
    void aCursorOpenedOnOneFrontEndIsContinuedOnTheOther() throws Exception {
        try (WireTestClient client = new WireTestClient(wire.port())) {
            List<BsonValue> seen = new ArrayList<>();
            BsonDocument first = client.command("db", json("{find: 'c', sort: {_id: 1}, batchSize: 5}")).getDocument("cursor");
            seen.addAll(first.getArray("firstBatch"));
            long id = first.getNumber("id").longValue();
            assertThat(id).isNotZero();
            BsonDocument viaRest = rest("db", new BsonDocument("getMore", new BsonInt64(id)).append("collection", new BsonString("c"))
                    .append("batchSize", new BsonInt32(5))).getDocument("cursor");
            seen.addAll(viaRest.getArray("nextBatch"));
            BsonDocument viaWire = client.command("db", new BsonDocument("getMore", new BsonInt64(id)).append("collection", new BsonString("c"))
                    .append("batchSize", new BsonInt32(5))).getDocument("cursor");
            seen.addAll(viaWire.getArray("nextBatch"));
            assertThat(seen).extracting(v -> v.asDocument().getInt32("_id").getValue()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14);

            // opened on REST, killed over the wire
            long restId = rest("db", json("{find: 'c', batchSize: 2}")).getDocument("cursor").getNumber("id").longValue();
            BsonDocument killed = client.command("db", json("{killCursors: 'c'}").append("cursors", new BsonArray(List.of(new BsonInt64(restId)))));
            assertThat(killed.getArray("cursorsKilled")).containsExactly(new BsonInt64(restId));
            BsonDocument gone = rest("db", new BsonDocument("getMore", new BsonInt64(restId)).append("collection", new BsonString("c")));
            assertThat(gone.getString("codeName").getValue()).isEqualTo("CursorNotFound");
        }
    }

    @Test
    void moreToComeGetsNoReplyAndTheConnectionStaysInStep() throws Exception {
        try (WireTestClient client = new WireTestClient(wire.port())) {
            int silent = WireTestClient.nextId();
            client.send(new OpMsg(OpMsg.MORE_TO_COME, json("{ping: 1, $db: 'admin'}"), Map.of()).encode(silent, 0));
            int answered = WireTestClient.nextId();
            client.send(OpMsg.of(json("{hello: 1, $db: 'admin'}")).encode(answered, 0));
            Frame reply = client.read().orElseThrow();
            assertThat(reply.responseTo()).isEqualTo(answered);
        }
    }

    @Test
    void aCompressedRequestGetsAReplyCompressedTheSameWay() throws Exception {
        try (WireTestClient client = new WireTestClient(wire.port())) {
            BsonDocument hello = client.command("admin", json("{hello: 1, compression: ['zstd', 'snappy', 'zlib']}"));
            assertThat(hello.getArray("compression")).containsExactly(new BsonString("zstd"), new BsonString("snappy"), new BsonString("zlib"));
            for (Compressor compressor : Compressor.values()) {
                int id = WireTestClient.nextId();
                client.send(OpCompressed.wrap(OpMsg.of(json("{find: 'c', filter: {_id: 3}, $db: 'db'}")).encode(id, 0), compressor));
                Frame reply = client.read().orElseThrow();
                assertThat(reply.opCode()).isEqualTo(OpCode.OP_COMPRESSED);
                OpCompressed.Unwrapped inner = OpCompressed.unwrap(reply, Handshake.MAX_MESSAGE_SIZE_BYTES);
                assertThat(inner.compressor()).isEqualTo(compressor);
                assertThat(inner.frame().responseTo()).isEqualTo(id);
                assertThat(OpMsg.parse(inner.frame()).body().getDocument("cursor").getArray("firstBatch")).hasSize(1);
            }
            // a handshake is never answered compressed
            int id = WireTestClient.nextId();
            client.send(OpCompressed.wrap(OpMsg.of(json("{hello: 1, $db: 'admin'}")).encode(id, 0), Compressor.ZSTD));
            assertThat(client.read().orElseThrow().opCode()).isEqualTo(OpCode.OP_MSG);
        }
        assertThat(meters.find("shardstore.router.wire.messages").tags("compressor", "zstd").timer()).isNotNull();
    }

    @Test
    void aBadMessageGetsAnErrorReplyAndTheConnectionGoesOn() throws Exception {
        try (WireTestClient client = new WireTestClient(wire.port())) {
            byte[] checksummed = new OpMsg(OpMsg.CHECKSUM_PRESENT, json("{ping: 1, $db: 'admin'}"), Map.of()).encode(WireTestClient.nextId(), 0);
            Frame good = sendAndRead(client, checksummed);
            assertThat(OpMsg.parse(good).has(OpMsg.CHECKSUM_PRESENT)).as("a checksummed request gets a checksummed reply").isTrue();
            assertThat(OpMsg.parse(good).body().getNumber("ok").doubleValue()).isEqualTo(1.0);

            checksummed[checksummed.length - 1] ^= 1;
            assertThat(OpMsg.parse(sendAndRead(client, checksummed)).body().getString("codeName").getValue()).isEqualTo("ProtocolError");
            assertThat(OpMsg.parse(sendAndRead(client, OpMsg.of(json("{ping: 1}")).encode(WireTestClient.nextId(), 0))).body()
                    .getInt32("code").getValue()).as("no $db").isEqualTo(40571);
            byte[] badBson = OpMsg.of(json("{ping: 1, $db: 'admin'}")).encode(WireTestClient.nextId(), 0);
            badBson[25] = 0x7F;
            assertThat(OpMsg.parse(sendAndRead(client, badBson)).body().getString("codeName").getValue()).isIn("InvalidBSON", "ProtocolError");
            assertThat(client.command("admin", json("{ping: 1}")).getNumber("ok").doubleValue()).isEqualTo(1.0);
        }
    }

    private static Frame sendAndRead(WireTestClient client, byte[] message) throws IOException {
        client.send(message);
        return client.read().orElseThrow(() -> new AssertionError("the router closed the connection instead of replying"));
    }

    /**
     * 10,000 malformed frames (seeded), each on its own connection whose sending side is then shut: the router must
     * answer or close every one of them (a read that waits 20 s fails the test), and afterwards hold no connection
     * and still answer {@code hello} and a command that goes through the config service.
     */
    @Test
    void tenThousandMalformedFramesLeaveTheRouterServing() throws Exception {
        Random random = new Random(20_261_124);
        long started = System.nanoTime();
        int replies = 0;
        int closedWithoutReply = 0;
        for (int i = 0; i < 10_000; i++) {
            byte[] frame = malformed(random);
            try (WireTestClient client = new WireTestClient(wire.port())) {
                try {
                    client.send(frame);
                    client.socket.shutdownOutput();
                } catch (IOException e) {
                    closedWithoutReply++; // the router closed while the frame was still being written: allowed
                    continue;
                }
                boolean replied = false;
                while (true) {
                    Optional<Frame> reply;
                    try {
                        reply = client.read();
                    } catch (SocketTimeoutException e) {
                        fail("frame %d (%s) got neither a reply nor a close within 20 s", i, describe(frame));
                        return;
                    } catch (IOException | MalformedMessageException e) {
                        break; // reset by the router
                    }
                    if (reply.isEmpty()) {
                        break;
                    }
                    replied = true;
                }
                if (replied) {
                    replies++;
                } else {
                    closedWithoutReply++;
                }
            }
        }
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        System.out.printf("[fuzz] 10000 malformed frames in %d s: %d answered with an error, %d closed%n", seconds, replies, closedWithoutReply);
        assertThat(replies).as("content errors are answered").isPositive();
        assertThat(closedWithoutReply).as("framing errors close").isPositive();

        await("every fuzz connection was closed").atMost(Duration.ofSeconds(30)).until(() -> wire.openConnections() == 0);
        try (WireTestClient client = new WireTestClient(wire.port())) {
            assertThat(client.command("admin", json("{hello: 1}")).getBoolean("isWritablePrimary").getValue()).isTrue();
            assertThat(client.command("admin", json("{listShards: 1}")).getArray("shards")).hasSize(1);
        }
    }

    private static String describe(byte[] frame) {
        ByteBuffer b = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        return frame.length >= 16 ? "length " + b.getInt(0) + ", opcode " + b.getInt(12) + ", " + frame.length + " bytes sent" : frame.length + " bytes";
    }

    /** One malformed frame of eleven kinds. */
    private static byte[] malformed(Random random) {
        byte[] valid = OpMsg.of(json("{find: 'c', filter: {x: {$gt: 1}}, $db: 'db'}")).encode(random.nextInt(), 0);
        return switch (random.nextInt(11)) {
            case 0 -> randomBytes(random, 1 + random.nextInt(200));
            case 1 -> withHeader(random.nextInt(17, 100_000), OpCode.OP_MSG.code(), randomBytes(random, random.nextInt(64)));
            case 2 -> withHeader(48 * 1024 * 1024, OpCode.OP_MSG.code(), randomBytes(random, 32));
            case 3 -> withHeader(Handshake.MAX_MESSAGE_SIZE_BYTES, OpCode.OP_MSG.code(), randomBytes(random, 32));
            case 4 -> {
                byte[] unknownKind = valid.clone();
                unknownKind[20] = (byte) (2 + random.nextInt(250));
                yield unknownKind;
            }
            case 5 -> {
                byte[] badChecksum = new OpMsg(OpMsg.CHECKSUM_PRESENT, json("{ping: 1, $db: 'admin'}"), Map.of()).encode(1, 0);
                badChecksum[badChecksum.length - 1 - random.nextInt(4)] ^= (byte) (1 + random.nextInt(255));
                yield badChecksum;
            }
            case 6 -> {
                byte[] flipped = valid.clone();
                for (int n = 1 + random.nextInt(4); n > 0; n--) {
                    flipped[16 + random.nextInt(flipped.length - 16)] = (byte) random.nextInt(256);
                }
                yield flipped;
            }
            case 7 -> withHeader(16 + 8, random.nextInt(3000, 100_000), randomBytes(random, 8));
            case 8 -> {
                byte[] compressed = OpCompressed.wrap(valid, Compressor.values()[random.nextInt(Compressor.values().length)]);
                for (int n = 1 + random.nextInt(4); n > 0; n--) {
                    compressed[16 + random.nextInt(compressed.length - 16)] = (byte) random.nextInt(256);
                }
                yield compressed;
            }
            case 9 -> withHeader(16 + 40, OpCode.OP_QUERY.code(), randomBytes(random, 40));
            default -> java.util.Arrays.copyOf(valid, random.nextInt(1, valid.length));
        };
    }

    private static byte[] randomBytes(Random random, int n) {
        byte[] bytes = new byte[n];
        random.nextBytes(bytes);
        return bytes;
    }

    private static byte[] withHeader(int length, int opCode, byte[] rest) {
        BasicOutputBuffer out = new BasicOutputBuffer();
        out.writeInt32(length);
        out.writeInt32(1);
        out.writeInt32(0);
        out.writeInt32(opCode);
        out.writeBytes(rest);
        return out.toByteArray();
    }
}
