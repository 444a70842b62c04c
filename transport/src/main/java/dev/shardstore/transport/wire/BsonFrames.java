package dev.shardstore.transport.wire;

import dev.shardstore.contracts.bson.BsonValidation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.bson.BsonBinaryReader;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

/**
 * BSON documents inside wire messages, through the official {@code org.mongodb:bson} reader and codec.
 *
 * <p>A document's bytes are first checked ({@link BsonValidation}: iteratively, so a maliciously deep document
 * cannot overflow the stack; structure and nesting depth), then decoded with {@link BsonDocumentCodec} or kept as
 * bytes ({@link #readRaw}). The depth limit is MongoDB's {@code BSONDepth} default for incoming documents, 200.
 */
public final class BsonFrames {
    /** MongoDB's default maximum nesting depth of an incoming BSON document. */
    public static final int MAX_DEPTH = 200;
    /** The smallest BSON document: its int32 length and the terminating NUL. */
    private static final int MIN_DOCUMENT_SIZE = 5;
    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private BsonFrames() {}

    /**
     * Reads the document starting at {@code in}'s position and advances past it.
     *
     * @throws CommandException InvalidBSON (22) when the declared size does not fit the remaining bytes, the bytes
     *                          are not a valid document, or it nests deeper than {@link #MAX_DEPTH}
     */
    public static BsonDocument read(ByteBuffer in) {
        ByteBuffer document = checked(in);
        try (BsonBinaryReader reader = new BsonBinaryReader(document)) {
            BsonDocument decoded = CODEC.decode(reader, DecoderContext.builder().build());
            in.position(in.position() + document.limit());
            return decoded;
        } catch (RuntimeException e) {
            throw invalid(e);
        }
    }

    /**
     * Reads the document starting at {@code in}'s position as a {@link RawBsonDocument} over the same bytes (no copy
     * when the buffer has an array, as a {@link Frame}'s does) and advances past it. It is checked as {@link #read}
     * checks, element by element, but no tree is built: a batch of documents that is only passed on or stored (an
     * {@code insert}'s document sequence) is never decoded and never re-encoded (issue 10's bulk-load profile had a
     * fifth of the router's and the shard's CPU doing just that). The result is immutable.
     *
     * @throws CommandException InvalidBSON (22), as {@link #read}
     */
    public static RawBsonDocument readRaw(ByteBuffer in) {
        ByteBuffer document = checked(in);
        int size = document.limit();
        RawBsonDocument raw;
        if (document.hasArray()) {
            raw = new RawBsonDocument(document.array(), document.arrayOffset(), size);
        } else {
            byte[] copy = new byte[size];
            document.get(0, copy);
            raw = new RawBsonDocument(copy);
        }
        in.position(in.position() + size);
        return raw;
    }

    /** The document at {@code in}'s position as its own little-endian buffer, its structure and depth checked. */
    private static ByteBuffer checked(ByteBuffer in) {
        if (in.remaining() < MIN_DOCUMENT_SIZE) {
            throw invalid("a document needs at least " + MIN_DOCUMENT_SIZE + " bytes, " + in.remaining() + " remain");
        }
        int size = in.order(ByteOrder.LITTLE_ENDIAN).getInt(in.position());
        if (size < MIN_DOCUMENT_SIZE || size > in.remaining()) {
            throw invalid("document length " + size + " does not fit the " + in.remaining() + " bytes that remain");
        }
        ByteBuffer document = in.slice(in.position(), size).order(ByteOrder.LITTLE_ENDIAN);
        try {
            BsonValidation.validate(document, 1, MAX_DEPTH);
        } catch (BsonValidation.InvalidBsonException e) {
            throw invalid(e);
        }
        return document;
    }

    /** Appends {@code document}'s BSON to {@code out}; a {@link RawBsonDocument}'s bytes are copied as they are. */
    public static void write(BsonDocument document, BasicOutputBuffer out) {
        if (document instanceof RawBsonDocument raw) {
            ByteBuffer bytes = raw.getByteBuffer().asNIO();
            if (bytes.hasArray()) {
                out.writeBytes(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
            } else {
                byte[] copy = new byte[bytes.remaining()];
                bytes.get(copy);
                out.writeBytes(copy);
            }
            return;
        }
        try (BsonBinaryWriter writer = new BsonBinaryWriter(out)) {
            CODEC.encode(writer, document, EncoderContext.builder().build());
        }
    }

    private static CommandException invalid(RuntimeException e) {
        return invalid(e.getMessage() == null ? e.toString() : e.getMessage());
    }

    private static CommandException invalid(String message) {
        return new CommandException(ErrorCode.InvalidBSON, "invalid BSON in message: " + message);
    }
}
