package dev.shardstore.contracts.wire;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Deque;
import org.bson.BsonBinaryReader;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.AbstractBsonReader.State;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

/**
 * BSON documents inside wire messages, through the official {@code org.mongodb:bson} reader and codec.
 *
 * <p>A document is first walked with the library's streaming reader (iteratively, so a maliciously deep document
 * cannot overflow the stack) to check its structure and its nesting depth, then decoded with
 * {@link BsonDocumentCodec}. The depth limit is MongoDB's {@code BSONDepth} default for incoming documents, 200.
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
        if (in.remaining() < MIN_DOCUMENT_SIZE) {
            throw invalid("a document needs at least " + MIN_DOCUMENT_SIZE + " bytes, " + in.remaining() + " remain");
        }
        int size = in.order(ByteOrder.LITTLE_ENDIAN).getInt(in.position());
        if (size < MIN_DOCUMENT_SIZE || size > in.remaining()) {
            throw invalid("document length " + size + " does not fit the " + in.remaining() + " bytes that remain");
        }
        ByteBuffer document = in.slice(in.position(), size).order(ByteOrder.LITTLE_ENDIAN);
        try {
            checkStructure(document.duplicate().order(ByteOrder.LITTLE_ENDIAN));
            BsonDocument decoded;
            try (BsonBinaryReader reader = new BsonBinaryReader(document)) {
                decoded = CODEC.decode(reader, DecoderContext.builder().build());
            }
            in.position(in.position() + size);
            return decoded;
        } catch (CommandException e) {
            throw e;
        } catch (RuntimeException e) {
            throw invalid(e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    /** Walks every element without recursion; the reader throws on any structural error. */
    private static void checkStructure(ByteBuffer document) {
        try (BsonBinaryReader reader = new BsonBinaryReader(document)) {
            Deque<Boolean> arrays = new ArrayDeque<>();
            reader.readStartDocument();
            arrays.push(false);
            while (!arrays.isEmpty()) {
                BsonType type = reader.readBsonType();
                if (type == BsonType.END_OF_DOCUMENT) {
                    if (arrays.pop()) {
                        reader.readEndArray();
                    } else {
                        reader.readEndDocument();
                    }
                    continue;
                }
                if (reader.getState() == State.NAME) {
                    reader.skipName();
                }
                switch (type) {
                    case DOCUMENT -> {
                        reader.readStartDocument();
                        arrays.push(false);
                    }
                    case ARRAY -> {
                        reader.readStartArray();
                        arrays.push(true);
                    }
                    case JAVASCRIPT_WITH_SCOPE -> {
                        reader.readJavaScriptWithScope();
                        reader.readStartDocument();
                        arrays.push(false);
                    }
                    default -> reader.skipValue();
                }
                if (arrays.size() > MAX_DEPTH) {
                    throw invalid("document nests deeper than " + MAX_DEPTH + " levels");
                }
            }
        }
    }

    /** Appends {@code document}'s BSON to {@code out}. */
    public static void write(BsonDocument document, BasicOutputBuffer out) {
        try (BsonBinaryWriter writer = new BsonBinaryWriter(out)) {
            CODEC.encode(writer, document, EncoderContext.builder().build());
        }
    }

    private static CommandException invalid(String message) {
        return new CommandException(ErrorCode.InvalidBSON, "invalid BSON in message: " + message);
    }
}
