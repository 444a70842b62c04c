package dev.shardstore.contracts.bson;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonSerializationException;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * MongoDB's limits on the shape of BSON that every service enforces before anything recursive (a codec, the
 * matcher, the targeter) walks a document, so hostile input is a clear error and never a stack overflow. The
 * per-document size limit is {@link BsonBytes#MAX_DOCUMENT_SIZE}.
 *
 * <p>Depth counts levels as MongoDB does: the top-level document is level 1, and each object or array value
 * inside adds one ({@code {a: 1}} has depth 1, {@code {a: {b: []}}} depth 3). The checks here are iterative:
 * they never recurse, whatever the depth of their input.
 */
public final class BsonLimits {
    /**
     * The deepest document any command may carry: MongoDB's {@code maxBSONDepth} default of 200
     * ({@code BSONDepth::getMaxAllowableDepth}). Deeper input is refused with {@code Overflow} (15).
     */
    public static final int MAX_DEPTH = 200;

    /**
     * The deepest document that may be stored: MongoDB's "Nested Depth for BSON Documents" limit of 100 levels
     * (half of {@link #MAX_DEPTH}, {@code BSONDepth::getMaxDepthForUserStorage}). An insert or update producing a
     * deeper document is a write error {@code Overflow} (15).
     */
    public static final int MAX_STORAGE_DEPTH = 100;

    /**
     * The largest request body a service reads, in bytes: MongoDB's {@code maxMessageSizeBytes} (48,000,000), the
     * largest message a mongod or mongos accepts. It is larger than {@link BsonBytes#MAX_DOCUMENT_SIZE} because a
     * request carries the command envelope and possibly several documents, and because Extended JSON text is
     * larger than the BSON it encodes (a document of 16 MiB of BSON must still fit). Larger bodies are refused with
     * {@code BSONObjectTooLarge} (10334) before they are read.
     */
    public static final int MAX_MESSAGE_SIZE = 48_000_000;

    private BsonLimits() {}

    /** The {@code Overflow} error for input deeper than {@code maxDepth}; {@code where} says where it was found. */
    public static CommandException tooDeep(int maxDepth, String where) {
        return new CommandException(ErrorCode.Overflow,
                where + " exceeds the maximum nesting depth of " + maxDepth + " levels (each object or array adds one)");
    }

    /**
     * Checks that {@code doc} nests at most {@code maxDepth} levels, without recursion. Nested
     * {@link RawBsonDocument}s are scanned in their encoded form, not decoded.
     *
     * @param what names the document in the error, e.g. "document to insert"
     * @throws CommandException Overflow (15) naming the dotted path (shortened) where the limit was crossed
     */
    public static void checkDepth(BsonDocument doc, int maxDepth, String what) {
        if (doc instanceof RawBsonDocument raw) {
            scan(raw.getByteBuffer().asNIO(), 1, maxDepth, what);
            return;
        }
        // one frame per open object/array: its entries and its dotted path
        Deque<Frame> open = new ArrayDeque<>();
        open.push(new Frame(entries(doc), ""));
        while (!open.isEmpty()) {
            Frame frame = open.peek();
            if (!frame.entries().hasNext()) {
                open.pop();
                continue;
            }
            Map.Entry<String, BsonValue> entry = frame.entries().next();
            BsonValue value = entry.getValue();
            if (value instanceof BsonJavaScriptWithScope code) {
                value = code.getScope();
            }
            if (!value.isDocument() && !value.isArray()) {
                continue;
            }
            int depth = open.size() + 1;
            String path = frame.path().isEmpty() ? entry.getKey() : frame.path() + "." + entry.getKey();
            if (depth > maxDepth) {
                throw tooDeep(maxDepth, what + " (at " + shorten(path) + ")");
            }
            if (value instanceof RawBsonDocument raw) {
                scan(raw.getByteBuffer().asNIO(), depth, maxDepth, what + " (under " + shorten(path) + ")");
            } else {
                open.push(new Frame(value.isDocument() ? entries(value.asDocument()) : indexed(value), path));
            }
        }
    }

    /**
     * Checks that the BSON document in {@code bson} (from its position on) nests at most {@code maxDepth} levels,
     * walking the bytes without recursion and without decoding values.
     *
     * @param what names the document in the error
     * @throws CommandException Overflow (15)
     * @throws BsonSerializationException if the bytes are not a well-formed document
     */
    public static void checkDepth(ByteBuffer bson, int maxDepth, String what) {
        scan(bson, 1, maxDepth, what);
    }

    /**
     * {@link #checkDepth(ByteBuffer, int, String)} for a document that sits at level {@code startDepth}, through
     * {@link BsonValidation} (no decoding, no allocation per element).
     *
     * @throws org.bson.BsonSerializationException when the bytes are not a well-formed document
     */
    private static void scan(ByteBuffer bson, int startDepth, int maxDepth, String what) {
        try {
            BsonValidation.validate(bson, startDepth, maxDepth);
        } catch (BsonValidation.InvalidBsonException e) {
            if (e.tooDeep()) {
                throw tooDeep(maxDepth, what);
            }
            throw new BsonSerializationException(e.getMessage());
        }
    }

    private static Iterator<Map.Entry<String, BsonValue>> entries(BsonDocument doc) {
        return doc.entrySet().iterator();
    }

    private static Iterator<Map.Entry<String, BsonValue>> indexed(BsonValue array) {
        Iterator<BsonValue> values = array.asArray().iterator();
        return new Iterator<>() {
            private int index;

            @Override
            public boolean hasNext() {
                return values.hasNext();
            }

            @Override
            public Map.Entry<String, BsonValue> next() {
                return Map.entry(String.valueOf(index++), values.next());
            }
        };
    }

    /** A long dotted path cut to its first and last components, so the message stays readable. */
    private static String shorten(String path) {
        return path.length() <= 80 ? path : path.substring(0, 40) + "..." + path.substring(path.length() - 30);
    }

    private record Frame(Iterator<Map.Entry<String, BsonValue>> entries, String path) {}
}
