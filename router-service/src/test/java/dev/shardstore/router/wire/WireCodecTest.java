package dev.shardstore.router.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.transport.wire.BsonFrames;
import dev.shardstore.transport.wire.Frame;
import dev.shardstore.transport.wire.MalformedMessageException;
import dev.shardstore.transport.wire.OpCode;
import dev.shardstore.transport.wire.OpMsg;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.io.BasicOutputBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The wire protocol's framing and codecs: header, OP_MSG sections and checksum, OP_QUERY/OP_REPLY, OP_COMPRESSED. */
class WireCodecTest {
    private static final int MAX = Handshake.MAX_MESSAGE_SIZE_BYTES;

    private static Frame frameOf(byte[] message) throws Exception {
        return Frame.read(new ByteArrayInputStream(message), MAX).orElseThrow();
    }

    private static byte[] header(int length, int requestId, int responseTo, int opCode) {
        return ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(length).putInt(requestId).putInt(responseTo).putInt(opCode).array();
    }

    private static byte[] concat(byte[]... parts) {
        BasicOutputBuffer out = new BasicOutputBuffer();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static byte[] bson(BsonDocument doc) {
        BasicOutputBuffer out = new BasicOutputBuffer();
        BsonFrames.write(doc, out);
        return out.toByteArray();
    }

    /** An OP_MSG assembled by hand from flag bits and raw section bytes, with a correct length. */
    private static byte[] rawOpMsg(int flags, byte[]... sections) {
        byte[] body = concat(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(flags).array(), concat(sections));
        return concat(header(16 + body.length, 5, 0, OpCode.OP_MSG.code()), body);
    }

    private static void assertCode(Runnable parse, ErrorCode code, String message) {
        assertThatThrownBy(parse::run).isInstanceOfSatisfying(CommandException.class, e -> {
            assertThat(e.code()).isEqualTo(code);
            assertThat(e.getMessage()).contains(message);
        });
    }

    @Test
    void theHeaderIsReadLittleEndianAndTheWholeMessageIsKept() throws Exception {
        byte[] message = OpMsg.of(ExtendedJson.parse("{ping: 1, $db: 'admin'}")).encode(42, 7);
        Frame frame = frameOf(message);
        assertThat(frame.requestId()).isEqualTo(42);
        assertThat(frame.responseTo()).isEqualTo(7);
        assertThat(frame.opCode()).isEqualTo(OpCode.OP_MSG);
        assertThat(frame.bytes()).isEqualTo(message);
        assertThat(ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN).getInt(0)).isEqualTo(message.length);
    }

    @Test
    void aCleanEndOfStreamBeforeAMessageIsNoMessage() throws Exception {
        assertThat(Frame.read(new ByteArrayInputStream(new byte[0]), MAX)).isEmpty();
    }

    @Test
    void lengthsOutsideHeaderSizeToMaxMessageSizeAreMalformed() {
        for (int length : new int[] {-1, 0, 15, MAX + 1, 48 * 1024 * 1024, Integer.MAX_VALUE}) {
            assertThatThrownBy(() -> frameOf(concat(header(length, 1, 0, 2013), new byte[64])))
                    .as("length %d", length).isInstanceOf(MalformedMessageException.class).hasMessageContaining("message length");
        }
    }

    @Test
    void unknownAndRemovedOpcodesAreMalformed() {
        for (int opCode : new int[] {0, 2001, 2002, 2005, 2006, 2007, 9999}) {
            assertThatThrownBy(() -> frameOf(header(16, 1, 0, opCode)))
                    .as("opcode %d", opCode).isInstanceOf(MalformedMessageException.class).hasMessageContaining("opcode");
        }
    }

    @Test
    void aStreamThatEndsInsideAMessageIsTruncated() {
        byte[] message = OpMsg.of(ExtendedJson.parse("{ping: 1, $db: 'admin'}")).encode(1, 0);
        for (int cut : new int[] {1, 15, 16, message.length - 1}) {
            assertThatThrownBy(() -> frameOf(Arrays.copyOf(message, cut)))
                    .as("cut at %d", cut).isInstanceOf(MalformedMessageException.class).hasMessageContaining("truncated");
        }
    }

    @Test
    void aLyingLengthAllocatesOnlyWhatArrives() throws Exception {
        // 47 MB announced, 100 bytes sent: the reader fails on the truncation, not on memory
        assertThatThrownBy(() -> frameOf(concat(header(47_000_000, 1, 0, 2013), new byte[100])))
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("truncated");
        // a genuine message larger than the first buffer (64 KiB) is read whole
        BsonDocument big = new BsonDocument("insert", new BsonString("c")).append("pad", new BsonString("x".repeat(300_000)));
        byte[] message = OpMsg.of(big).encode(3, 0);
        assertThat(OpMsg.parse(frameOf(message)).body()).isEqualTo(big);
    }

    @Test
    void documentSequencesRoundTripAndAreFoldedIntoTheCommand() throws Exception {
        Map<String, List<BsonDocument>> sequences = new LinkedHashMap<>();
        sequences.put("documents", List.of(ExtendedJson.parse("{_id: 1}"), ExtendedJson.parse("{_id: 2, a: [1, {b: 2}]}")));
        sequences.put("other", List.of());
        BsonDocument body = ExtendedJson.parse("{insert: 'c', ordered: false, $db: 'test'}");
        OpMsg parsed = OpMsg.parse(frameOf(new OpMsg(0, body, sequences).encode(9, 0)));

        assertThat(parsed.body()).isEqualTo(body);
        assertThat(parsed.sequences()).isEqualTo(sequences);
        assertThat(parsed.command()).isEqualTo(ExtendedJson.parse(
                "{insert: 'c', ordered: false, $db: 'test', documents: [{_id: 1}, {_id: 2, a: [1, {b: 2}]}], other: []}"));
        assertThat(parsed.body()).as("folding leaves the body alone").isEqualTo(body);
    }

    @Test
    void sequenceDocumentsStayRawBytesAndAreCheckedAsTheBodyIs() throws Exception {
        BsonDocument doc = ExtendedJson.parse("{_id: 2, s: 'xy', t: true, a: [1, {b: 2}]}");
        OpMsg parsed = OpMsg.parse(frameOf(new OpMsg(0, ExtendedJson.parse("{insert: 'c', $db: 'test'}"),
                Map.of("documents", List.of(doc))).encode(3, 0)));
        assertThat(parsed.sequences().get("documents")).singleElement()
                .isInstanceOf(RawBsonDocument.class).isEqualTo(doc);

        byte[] good = bson(ExtendedJson.parse("{s: 'xy', t: true}"));
        byte[] unterminatedString = good.clone();
        unterminatedString[4 + 3 + 4 + 2] = 'z'; // type, "s\0", int32 length, "xy": the string's NUL
        byte[] badBoolean = good.clone();
        badBoolean[good.length - 2] = 2; // the boolean's byte, before the document's terminator
        byte[] lyingSize = good.clone();
        lyingSize[0] = (byte) (good.length + 10);
        byte[] body = concat(new byte[] {0}, bson(ExtendedJson.parse("{insert: 'c'}")));
        for (byte[] bad : List.of(unterminatedString, badBoolean, lyingSize, bson(nested(BsonFrames.MAX_DEPTH + 1)))) {
            byte[] sequence = concat(new byte[] {1}, ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(4 + 10 + bad.length).array(),
                    "documents\0".getBytes(), bad);
            assertCode(() -> OpMsg.parse(new Frame(1, 0, OpCode.OP_MSG, rawOpMsg(0, body, sequence))), ErrorCode.InvalidBSON, "invalid BSON");
        }
    }

    @Test
    void aPeerRequestSendsAnInsertsDocumentsAsADocumentSequence() throws Exception {
        BsonDocument insert = ExtendedJson.parse("{insert: 'c', documents: [{_id: 1}, {_id: 2, a: {b: 1}}], ordered: false, $db: 'test'}");
        OpMsg request = OpMsg.request(insert);
        assertThat(request.body()).isEqualTo(ExtendedJson.parse("{insert: 'c', ordered: false, $db: 'test'}"));
        assertThat(request.sequences().get("documents")).isEqualTo(insert.getArray("documents").getValues());
        BsonDocument received = OpMsg.parse(frameOf(request.encode(4, 0))).command();
        assertThat(received.keySet()).containsExactlyInAnyOrderElementsOf(insert.keySet());
        insert.forEach((name, value) -> assertThat(received.get(name)).as(name).isEqualTo(value));
        assertThat(insert.getArray("documents")).as("the command is not modified").hasSize(2);

        // a batch with a non-document stays in the body, so the receiver's error names the entry
        BsonDocument mixed = ExtendedJson.parse("{insert: 'c', documents: [{_id: 1}, 5], $db: 'test'}");
        assertThat(OpMsg.request(mixed)).isEqualTo(OpMsg.of(mixed));
        BsonDocument find = ExtendedJson.parse("{find: 'c', filter: {}, $db: 'test'}");
        assertThat(OpMsg.request(find)).isEqualTo(OpMsg.of(find));
    }

    @Test
    void aChecksumIsWrittenAndVerifiedAsCrc32c() throws Exception {
        byte[] message = new OpMsg(OpMsg.CHECKSUM_PRESENT, ExtendedJson.parse("{ping: 1, $db: 'admin'}"), Map.of()).encode(1, 0);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(message, 0, message.length - 4);
        assertThat(ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN).getInt(message.length - 4)).isEqualTo((int) crc.getValue());
        assertThat(OpMsg.parse(frameOf(message)).body().getFirstKey()).isEqualTo("ping");

        for (int flip : new int[] {5, 21, message.length - 6, message.length - 1}) {
            byte[] corrupt = message.clone();
            corrupt[flip] ^= 0x10;
            assertCode(() -> OpMsg.parse(new Frame(1, 0, OpCode.OP_MSG, corrupt)), ErrorCode.ProtocolError, "checksum");
        }
    }

    @Test
    void badSectionsAndFlagsAreProtocolErrors() {
        byte[] body = concat(new byte[] {0}, bson(ExtendedJson.parse("{ping: 1}")));
        byte[] sequenceHead = concat(new byte[] {1}, ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(9).array(), "ping\0".getBytes());
        assertCode(() -> OpMsg.parse(new Frame(1, 0, OpCode.OP_MSG, rawOpMsg(0, body, new byte[] {2, 0, 0, 0, 0}))), ErrorCode.ProtocolError, "unknown kind 2");
        assertCode(() -> OpMsg.parse(new Frame(1, 0, OpCode.OP_MSG, rawOpMsg(0, body, body))), ErrorCode.ProtocolError, "more than one body");
        assertCode(() -> OpMsg.parse(new Frame(1, 0, OpCode.OP_MSG, rawOpMsg(0))), ErrorCode.ProtocolError, "no body");
        assertCode(() -> OpMsg.parse(new Frame(1, 0, OpCode.OP_MSG, rawOpMsg(1 << 4, body))), ErrorCode.ProtocolError, "unknown required flag");
        assertCode(() -> OpMsg.parse(new Frame(1, 0, OpCode.OP_MSG, rawOpMsg(0, body, sequenceHead))), ErrorCode.ProtocolError, "both in the body");
        byte[] lyingSequence = concat(new byte[] {1}, ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(5000).array(), "x\0".getBytes());
        assertCode(() -> OpMsg.parse(new Frame(1, 0, OpCode.OP_MSG, rawOpMsg(0, body, lyingSequence))), ErrorCode.ProtocolError, "does not fit");
        // an optional flag this router does not use (exhaustAllowed) is fine
        assertThat(OpMsg.parse(new Frame(1, 0, OpCode.OP_MSG, rawOpMsg(OpMsg.EXHAUST_ALLOWED, body))).body().getFirstKey()).isEqualTo("ping");
    }

    @Test
    void invalidBsonIsInvalidBson() {
        byte[] good = bson(ExtendedJson.parse("{find: 'c', filter: {a: 'b'}}"));
        byte[] lyingSize = good.clone();
        lyingSize[0] = (byte) (good.length + 10);
        byte[] badType = good.clone();
        badType[4] = 0x7A; // element type 122 does not exist
        byte[] noTerminator = good.clone();
        noTerminator[good.length - 1] = 1;
        for (byte[] doc : List.of(lyingSize, badType, noTerminator, new byte[] {5, 0, 0})) {
            assertCode(() -> OpMsg.parse(new Frame(1, 0, OpCode.OP_MSG, rawOpMsg(0, concat(new byte[] {0}, doc)))), ErrorCode.InvalidBSON, "invalid BSON");
        }
    }

    @Test
    void documentsNestedDeeperThanTwoHundredLevelsAreRefusedWithoutRecursion() {
        assertThat(OpMsg.parse(new Frame(1, 0, OpCode.OP_MSG, rawOpMsg(0, concat(new byte[] {0}, bson(nested(BsonFrames.MAX_DEPTH - 1)))))).body())
                .isEqualTo(nested(BsonFrames.MAX_DEPTH - 1));
        // 100,000 levels written by hand (the BSON library's own writer would recurse): refused, no StackOverflowError
        int depth = 100_000;
        BasicOutputBuffer out = new BasicOutputBuffer();
        for (int i = 0; i < depth; i++) {
            out.writeInt32(0);
            out.writeByte(3);
            out.writeCString("a");
        }
        out.writeInt32(5);
        out.writeByte(0);
        for (int i = 0; i < depth; i++) {
            out.writeByte(0);
        }
        byte[] deep = out.toByteArray();
        ByteBuffer sizes = ByteBuffer.wrap(deep).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < depth; i++) {
            int start = i * 7;
            sizes.putInt(start, deep.length - start - i);
        }
        assertCode(() -> OpMsg.parse(new Frame(1, 0, OpCode.OP_MSG, rawOpMsg(0, concat(new byte[] {0}, deep)))), ErrorCode.InvalidBSON, "deeper than 200");
    }

    private static BsonDocument nested(int levels) {
        BsonDocument doc = new BsonDocument("x", new BsonInt32(1));
        for (int i = 1; i < levels; i++) {
            doc = new BsonDocument("a", doc);
        }
        return new BsonDocument("ping", new BsonInt32(1)).append("deep", doc);
    }

    @Test
    void opQueryIsParsedAndItsCommandUnwrapped() throws Exception {
        OpQuery plain = OpQuery.parse(frameOf(WireTestClient.opQuery(3, "admin.$cmd", ExtendedJson.parse("{isMaster: 1, helloOk: true}"))));
        assertThat(plain.isCommand()).isTrue();
        assertThat(plain.database()).isEqualTo("admin");
        assertThat(plain.command()).isEqualTo(ExtendedJson.parse("{isMaster: 1, helloOk: true}"));

        OpQuery wrapped = OpQuery.parse(frameOf(WireTestClient.opQuery(4, "test.$cmd",
                ExtendedJson.parse("{$query: {ismaster: 1}, $readPreference: {mode: 'secondaryPreferred'}}"))));
        assertThat(wrapped.command()).isEqualTo(ExtendedJson.parse("{ismaster: 1}"));

        OpQuery collection = OpQuery.parse(frameOf(WireTestClient.opQuery(5, "test.cities", ExtendedJson.parse("{}"))));
        assertThat(collection.isCommand()).isFalse();

        byte[] unterminated = concat(header(16 + 4 + 3, 6, 0, OpCode.OP_QUERY.code()), new byte[4], "abc".getBytes());
        assertCode(() -> OpQuery.parse(new Frame(6, 0, OpCode.OP_QUERY, unterminated)), ErrorCode.ProtocolError, "unterminated");
    }

    @Test
    void opReplyCarriesOneDocumentAndNoCursor() throws Exception {
        BsonDocument doc = ExtendedJson.parse("{ismaster: true, ok: 1.0}");
        byte[] reply = OpReply.encode(11, 3, doc);
        Frame frame = frameOf(reply);
        assertThat(frame.opCode()).isEqualTo(OpCode.OP_REPLY);
        assertThat(frame.responseTo()).isEqualTo(3);
        ByteBuffer body = frame.body();
        assertThat(body.getInt()).as("responseFlags").isZero();
        assertThat(body.getLong()).as("cursorID").isZero();
        assertThat(body.getInt()).as("startingFrom").isZero();
        assertThat(body.getInt()).as("numberReturned").isEqualTo(1);
        assertThat(WireTestClient.replyDocument(frame)).isEqualTo(doc);
    }

    @ParameterizedTest
    @EnumSource(Compressor.class)
    void opCompressedRoundTripsThroughEachCompressor(Compressor compressor) throws Exception {
        assertThat(compressor.available()).as("%s loads here", compressor).isTrue();
        BsonDocument command = ExtendedJson.parse("{insert: 'c', $db: 'test'}").append("pad", new BsonString("abc".repeat(10_000)));
        byte[] message = OpMsg.of(command).encode(77, 0);
        byte[] compressed = OpCompressed.wrap(message, compressor);
        assertThat(compressed.length).isLessThan(message.length / 10);

        Frame outer = frameOf(compressed);
        assertThat(outer.opCode()).isEqualTo(OpCode.OP_COMPRESSED);
        OpCompressed.Unwrapped inner = OpCompressed.unwrap(outer, MAX);
        assertThat(inner.compressor()).isEqualTo(compressor);
        assertThat(inner.frame().bytes()).isEqualTo(message);
        assertThat(OpMsg.parse(inner.frame()).body()).isEqualTo(command);
    }

    @ParameterizedTest
    @EnumSource(Compressor.class)
    void aCompressedPayloadThatDoesNotExpandToItsAnnouncedSizeIsMalformed(Compressor compressor) {
        byte[] message = OpMsg.of(ExtendedJson.parse("{ping: 1, $db: 'admin'}")).encode(1, 0);
        byte[] compressed = OpCompressed.wrap(message, compressor);
        ByteBuffer fields = ByteBuffer.wrap(compressed).order(ByteOrder.LITTLE_ENDIAN);
        byte[] wrongSize = compressed.clone();
        ByteBuffer.wrap(wrongSize).order(ByteOrder.LITTLE_ENDIAN).putInt(20, fields.getInt(20) - 3);
        byte[] garbage = compressed.clone();
        for (int i = 25; i < garbage.length; i++) {
            garbage[i] = (byte) (i * 31);
        }
        for (byte[] bad : List.of(wrongSize, garbage)) {
            assertThatThrownBy(() -> OpCompressed.unwrap(frameOf(bad), MAX)).isInstanceOf(MalformedMessageException.class);
        }
    }

    @Test
    void opCompressedRefusesUnknownCompressorsOpcodesAndSizes() throws Exception {
        byte[] message = OpMsg.of(ExtendedJson.parse("{ping: 1, $db: 'admin'}")).encode(1, 0);
        byte[] compressed = OpCompressed.wrap(message, Compressor.ZLIB);
        byte[] noop = compressed.clone();
        noop[24] = 0;
        byte[] unknownOpcode = compressed.clone();
        ByteBuffer.wrap(unknownOpcode).order(ByteOrder.LITTLE_ENDIAN).putInt(16, OpCode.OP_COMPRESSED.code());
        byte[] huge = compressed.clone();
        ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putInt(20, MAX);
        for (byte[] bad : List.of(noop, unknownOpcode, huge)) {
            assertThatThrownBy(() -> OpCompressed.unwrap(frameOf(bad), MAX)).isInstanceOf(MalformedMessageException.class);
        }
    }

    @Test
    void theHandshakeAnswersAsAMongosOfWireVersion25() {
        BsonDocument hello = Handshake.reply(ExtendedJson.parse("{hello: 1, helloOk: true, compression: ['lz4', 'zstd', 'snappy', 'zstd']}"), 12, 30);
        assertThat(hello.getBoolean("isWritablePrimary").getValue()).isTrue();
        assertThat(hello.containsKey("ismaster")).isFalse();
        assertThat(hello.getString("msg").getValue()).isEqualTo("isdbgrid");
        assertThat(hello.getBoolean("helloOk").getValue()).isTrue();
        assertThat(hello.getInt32("maxBsonObjectSize").getValue()).isEqualTo(16 * 1024 * 1024);
        assertThat(hello.getInt32("maxMessageSizeBytes").getValue()).isEqualTo(48_000_000);
        assertThat(hello.getInt32("maxWriteBatchSize").getValue()).isEqualTo(100_000);
        assertThat(hello.isDateTime("localTime")).isTrue();
        assertThat(hello.getNumber("connectionId").longValue()).isEqualTo(12);
        assertThat(hello.getInt32("minWireVersion").getValue()).isZero();
        assertThat(hello.getInt32("maxWireVersion").getValue()).isEqualTo(25);
        assertThat(hello.getArray("compression")).containsExactly(new BsonString("zstd"), new BsonString("snappy"));
        assertThat(hello.getInt32("logicalSessionTimeoutMinutes").getValue()).as("sessions: drivers send lsid and txnNumber").isEqualTo(30);
        assertThat(hello.getNumber("ok").doubleValue()).isEqualTo(1.0);

        BsonDocument legacy = Handshake.reply(ExtendedJson.parse("{isMaster: 1}"), 13, 30);
        assertThat(legacy.getBoolean("ismaster").getValue()).isTrue();
        assertThat(legacy.containsKey("isWritablePrimary")).isFalse();
        assertThat(legacy.containsKey("helloOk")).isFalse();
        assertThat(legacy.containsKey("compression")).isFalse();
        assertThat(Handshake.reply(ExtendedJson.parse("{ismaster: 1}"), 14, 30).getBoolean("ismaster").getValue()).isTrue();

        assertCode(() -> Handshake.reply(ExtendedJson.parse("{hello: 1, compression: 'zstd'}"), 15, 30), ErrorCode.TypeMismatch, "compression");
    }

    @Test
    void retryableWriteErrorLabelsFollowMongoDbsRule() {
        BsonDocument withTxn = ExtendedJson.parse("{insert: 'c', documents: [], txnNumber: {$numberLong: '1'}}");
        assertThat(ErrorLabels.label(withTxn, ErrorCode.HostUnreachable, new BsonDocument()).getArray("errorLabels"))
                .containsExactly(new BsonString("RetryableWriteError"));
        assertThat(ErrorLabels.label(withTxn, ErrorCode.DuplicateKey, new BsonDocument()).containsKey("errorLabels")).as("not retryable").isFalse();
        assertThat(ErrorLabels.label(ExtendedJson.parse("{insert: 'c', documents: []}"), ErrorCode.HostUnreachable, new BsonDocument())
                .containsKey("errorLabels")).as("no txnNumber: not a retryable write").isFalse();
        assertThat(ErrorLabels.label(ExtendedJson.parse("{find: 'c', txnNumber: 1}"), ErrorCode.NetworkTimeout, new BsonDocument())
                .containsKey("errorLabels")).as("not a write").isFalse();
        assertThat(ErrorLabels.label(withTxn.clone().append("autocommit", org.bson.BsonBoolean.FALSE), ErrorCode.ShutdownInProgress,
                new BsonDocument()).containsKey("errorLabels")).as("in a transaction").isFalse();
    }
}
