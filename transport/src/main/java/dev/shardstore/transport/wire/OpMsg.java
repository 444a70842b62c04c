package dev.shardstore.transport.wire;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.zip.CRC32C;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.io.BasicOutputBuffer;

/**
 * An OP_MSG (MongoDB's "OP_MSG" wire protocol specification): {@code flagBits}, exactly one kind-0 section (the
 * command or reply document), any number of kind-1 document sequences ({@code int32 size, cstring identifier,
 * documents}) and, when {@link #CHECKSUM_PRESENT} is set, a trailing CRC-32C of everything before it.
 *
 * @param flags     the flag bits; only {@link #CHECKSUM_PRESENT}, {@link #MORE_TO_COME} and {@link #EXHAUST_ALLOWED}
 *                  are defined
 * @param body      the kind-0 document
 * @param sequences the kind-1 sections by identifier, in message order; parsed ones hold {@link org.bson.RawBsonDocument}s
 *                  ({@link BsonFrames#readRaw}), immutable and decoded only where read
 */
public record OpMsg(int flags, BsonDocument body, Map<String, List<BsonDocument>> sequences) {
    /** Bit 0: the message ends with a CRC-32C checksum. */
    public static final int CHECKSUM_PRESENT = 1;
    /** Bit 1: the sender will not wait for a reply (a client's unacknowledged write). */
    public static final int MORE_TO_COME = 1 << 1;
    /** Bit 16: the client accepts several replies to one request (exhaust cursors); optional, so ignorable. */
    public static final int EXHAUST_ALLOWED = 1 << 16;
    /** Bits 0-15 are "required": a receiver must fail on one it does not know. */
    private static final int REQUIRED_BITS = 0xFFFF;
    private static final int KNOWN_REQUIRED_BITS = CHECKSUM_PRESENT | MORE_TO_COME;
    private static final int CHECKSUM_SIZE = 4;
    /** The field of {@code insert} that {@link #request} sends as a document sequence. */
    private static final String DOCUMENTS = "documents";

    public OpMsg {
        Objects.requireNonNull(body, "body");
        Map<String, List<BsonDocument>> copy = new LinkedHashMap<>();
        Objects.requireNonNull(sequences, "sequences").forEach((id, docs) -> copy.put(id, List.copyOf(docs)));
        sequences = java.util.Collections.unmodifiableMap(copy);
    }

    /** A reply or request without flags or document sequences. */
    public static OpMsg of(BsonDocument body) {
        return new OpMsg(0, body, Map.of());
    }

    /**
     * A request for a peer's command port: the command, except that an {@code insert}'s {@code documents}, when every
     * entry is a document, go as a kind-1 document sequence, as drivers send them. The receiver's {@link #parse} then
     * keeps those documents as the bytes they arrived in, so a shard stores a routed insert batch without decoding
     * and re-encoding it (issue 10).
     *
     * @param command the command with its {@code $db}; not modified
     */
    public static OpMsg request(BsonDocument command) {
        BsonValue documents = command.get(DOCUMENTS);
        if (documents == null || !documents.isArray() || !documents.asArray().stream().allMatch(BsonValue::isDocument)) {
            return of(command);
        }
        BsonDocument body = new BsonDocument();
        command.forEach((name, value) -> {
            if (!name.equals(DOCUMENTS)) {
                body.append(name, value);
            }
        });
        return new OpMsg(0, body, Map.of(DOCUMENTS, documents.asArray().stream().map(BsonValue::asDocument).toList()));
    }

    /** Whether {@code flag} is set. */
    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /**
     * The command document the registry runs: the body with each document sequence folded in as an array field of
     * its identifier (so {@code insert}'s kind-1 {@code documents} becomes the {@code documents} array). The body is
     * not changed.
     */
    public BsonDocument command() {
        if (sequences.isEmpty()) {
            return body;
        }
        BsonDocument command = body.clone();
        sequences.forEach((id, docs) -> command.append(id, new BsonArray(docs)));
        return command;
    }

    /**
     * Parses an OP_MSG frame.
     *
     * @throws CommandException ProtocolError (17) for an unknown required flag bit, a checksum that does not match,
     *                          a section of unknown kind, no or several kind-0 sections, a sequence whose size lies or
     *                          whose identifier repeats or is also a body field; InvalidBSON (22) for a bad document
     */
    public static OpMsg parse(Frame frame) {
        if (frame.opCode() != OpCode.OP_MSG) {
            throw new IllegalArgumentException("not an OP_MSG: " + frame.opCode());
        }
        ByteBuffer in = frame.body();
        int flags = flags(in);
        ByteBuffer sections = sections(frame, in, flags);
        BsonDocument body = null;
        Map<String, List<BsonDocument>> sequences = new LinkedHashMap<>();
        while (sections.hasRemaining()) {
            int kind = sections.get();
            switch (kind) {
                case 0 -> {
                    if (body != null) {
                        throw protocol("OP_MSG has more than one body section (kind 0)");
                    }
                    body = BsonFrames.read(sections);
                }
                case 1 -> readSequence(sections, sequences);
                default -> throw protocol("OP_MSG section of unknown kind " + kind);
            }
        }
        if (body == null) {
            throw protocol("OP_MSG has no body section (kind 0)");
        }
        for (String id : sequences.keySet()) {
            if (body.containsKey(id)) {
                throw protocol("OP_MSG field '" + id + "' is both in the body and a document sequence");
            }
        }
        return new OpMsg(flags, body, sequences);
    }

    /**
     * The body document of a reply that has nothing but a body (what a peer's command port sends): the flags and the
     * checksum are checked as {@link #parse} does, the document is returned as bytes for the caller to decode its own way
     * ({@link dev.shardstore.contracts.bson.BsonBytes#decodeKeepingBatches}).
     *
     * @return the body document's bytes, from the buffer's position to its limit
     * @throws CommandException ProtocolError for what {@link #parse} refuses, a section other than one body, or bytes after
     *                          it; InvalidBSON when the body's length does not fit
     */
    public static ByteBuffer bodyOnly(Frame frame) {
        if (frame.opCode() != OpCode.OP_MSG) {
            throw new IllegalArgumentException("not an OP_MSG: " + frame.opCode());
        }
        ByteBuffer in = frame.body();
        ByteBuffer sections = sections(frame, in, flags(in));
        if (!sections.hasRemaining() || sections.get() != 0) {
            throw protocol("the reply is not one OP_MSG body section (kind 0)");
        }
        int size = sections.remaining() < 4 ? -1 : sections.getInt(sections.position());
        if (size != sections.remaining()) {
            throw new CommandException(ErrorCode.InvalidBSON, "invalid BSON in message: the body's length " + size
                    + " is not the " + sections.remaining() + " bytes of the section");
        }
        return sections.slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    private static int flags(ByteBuffer in) {
        if (in.remaining() < 4) {
            throw protocol("OP_MSG too short for its flag bits");
        }
        int flags = in.getInt();
        int unknown = flags & REQUIRED_BITS & ~KNOWN_REQUIRED_BITS;
        if (unknown != 0) {
            throw protocol("OP_MSG contains unknown required flag bits 0x" + Integer.toHexString(unknown));
        }
        return flags;
    }

    /** The sections after the flags, the checksum (when flagged) checked and left out. */
    private static ByteBuffer sections(Frame frame, ByteBuffer in, int flags) {
        int end = in.limit();
        if ((flags & CHECKSUM_PRESENT) != 0) {
            if (in.remaining() < CHECKSUM_SIZE) {
                throw protocol("OP_MSG has the checksum flag but no room for a checksum");
            }
            end -= CHECKSUM_SIZE;
            int expected = in.getInt(end);
            if (expected != checksum(frame.bytes(), frame.bytes().length - CHECKSUM_SIZE)) {
                throw protocol("OP_MSG checksum mismatch");
            }
        }
        return in.slice(in.position(), end - in.position()).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static void readSequence(ByteBuffer sections, Map<String, List<BsonDocument>> sequences) {
        if (sections.remaining() < 4) {
            throw protocol("OP_MSG document sequence too short for its size");
        }
        int size = sections.getInt();
        if (size < 4 || size - 4 > sections.remaining()) {
            throw protocol("OP_MSG document sequence size " + size + " does not fit the message");
        }
        ByteBuffer sequence = sections.slice(sections.position(), size - 4).order(ByteOrder.LITTLE_ENDIAN);
        sections.position(sections.position() + size - 4);
        String id = cString(sequence);
        List<BsonDocument> docs = new ArrayList<>();
        while (sequence.hasRemaining()) {
            docs.add(BsonFrames.readRaw(sequence));
        }
        if (sequences.put(id, docs) != null) {
            throw protocol("OP_MSG has two document sequences named '" + id + "'");
        }
    }

    /** Reads a NUL-terminated UTF-8 string. */
    public static String cString(ByteBuffer in) {
        int start = in.position();
        for (int i = start; i < in.limit(); i++) {
            if (in.get(i) == 0) {
                byte[] bytes = new byte[i - start];
                in.get(bytes);
                in.get();
                return new String(bytes, StandardCharsets.UTF_8);
            }
        }
        throw protocol("unterminated string in message");
    }

    /**
     * The whole message: header, flags, the body section, a document sequence per entry and, when
     * {@link #CHECKSUM_PRESENT} is set, the CRC-32C.
     */
    public byte[] encode(int requestId, int responseTo) {
        BasicOutputBuffer out = new BasicOutputBuffer();
        Messages.writeHeader(out, requestId, responseTo, OpCode.OP_MSG);
        out.writeInt32(flags);
        out.writeByte(0);
        BsonFrames.write(body, out);
        sequences.forEach((id, docs) -> {
            out.writeByte(1);
            int sizeAt = out.getPosition();
            out.writeInt32(0);
            out.writeCString(id);
            docs.forEach(doc -> BsonFrames.write(doc, out));
            out.writeInt32(sizeAt, out.getPosition() - sizeAt);
        });
        if (has(CHECKSUM_PRESENT)) {
            out.writeInt32(0);
            Messages.patchLength(out);
            byte[] bytes = out.toByteArray();
            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(bytes.length - CHECKSUM_SIZE, checksum(bytes, bytes.length - CHECKSUM_SIZE));
            return bytes;
        }
        Messages.patchLength(out);
        return out.toByteArray();
    }

    /** CRC-32C (Castagnoli) of {@code bytes[0, length)}, as OP_MSG's checksum. */
    static int checksum(byte[] bytes, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        return (int) crc.getValue();
    }

    private static CommandException protocol(String message) {
        return new CommandException(ErrorCode.ProtocolError, message);
    }
}
