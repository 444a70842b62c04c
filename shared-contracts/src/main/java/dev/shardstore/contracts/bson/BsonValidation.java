package dev.shardstore.contracts.bson;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Checks a BSON document's bytes without decoding anything (BSON specification, bsonspec.org; MongoDB's
 * {@code validateBSON}): every length fits its container, every element has a known type, a NUL-terminated name and
 * a value of the size its type says, strings end in their NUL, booleans are 0 or 1, every embedded document and array
 * ends where its length says, and the nesting stays within a limit. One pass, iterative, and allocation-free apart
 * from one small array of container ends, so a batch of documents that is only stored or passed on can be checked
 * at a fraction of the cost of decoding it (issue 10: the BSON library's reader allocates a string per field name).
 * UTF-8 is not checked, as the BSON library's decoder does not refuse it either.
 *
 * <p>Depth counts as {@link BsonLimits} does: the document itself is at {@code startDepth} (1 for a top-level
 * document), each embedded document, array or code-with-scope scope one more.
 */
public final class BsonValidation {
    private static final int MIN_DOCUMENT_SIZE = 5;

    private BsonValidation() {}

    /** Why a document was refused: {@link #tooDeep()} for the nesting limit, otherwise malformed bytes. */
    public static final class InvalidBsonException extends RuntimeException {
        private final boolean tooDeep;

        InvalidBsonException(String message, boolean tooDeep) {
            super(message, null, false, false);
            this.tooDeep = tooDeep;
        }

        /** Whether the document is well formed but nests deeper than allowed. */
        public boolean tooDeep() {
            return tooDeep;
        }
    }

    /**
     * Checks the document that fills {@code bson} from its position to its limit.
     *
     * @param startDepth the level of the document itself (1 for a top-level document)
     * @param maxDepth   the deepest level allowed
     * @throws InvalidBsonException naming the first problem and its byte offset
     */
    public static void validate(ByteBuffer bson, int startDepth, int maxDepth) {
        ByteBuffer in = bson.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int base = in.position();
        int limit = in.limit();
        if (limit - base < MIN_DOCUMENT_SIZE) {
            throw malformed("a document needs at least " + MIN_DOCUMENT_SIZE + " bytes, has " + (limit - base), base);
        }
        int size = in.getInt(base);
        if (size != limit - base) {
            throw malformed("document length " + size + " is not the " + (limit - base) + " bytes given", base);
        }
        if (startDepth > maxDepth) {
            throw tooDeep(maxDepth, base);
        }
        // ends[d]: the offset of the terminating NUL of the container open at level startDepth + d
        int[] ends = new int[Math.max(1, maxDepth - startDepth + 1)];
        int open = 0;
        ends[0] = limit - 1;
        int pos = base + 4;
        while (true) {
            int end = ends[open];
            int type = in.get(pos); // signed: min key (0xFF) is -1
            if (pos == end && type != 0) {
                throw malformed("a document does not end with a NUL byte", pos);
            }
            if (type == 0) {
                if (pos != end) {
                    throw malformed("a document ends before its length says", pos);
                }
                if (open == 0) {
                    return;
                }
                open--;
                pos++;
                continue;
            }
            int value = nameEnd(in, pos + 1, end) + 1;
            if (type == 0x03 || type == 0x04 || type == 0x0F) {
                int document = value;
                if (type == 0x0F) { // code with scope: int32 total, string, document
                    int total = length(in, value, end, 4 + 5 + MIN_DOCUMENT_SIZE, 0);
                    document = stringEnd(in, value + 4, value + total, type);
                    if (document + MIN_DOCUMENT_SIZE > value + total || document + in.getInt(document) != value + total) {
                        throw malformed("a code-with-scope's length does not match its string and scope", value);
                    }
                }
                int length = length(in, document, end, MIN_DOCUMENT_SIZE, 0);
                if (startDepth + open + 1 > maxDepth) {
                    throw tooDeep(maxDepth, document);
                }
                ends[++open] = document + length - 1;
                pos = document + 4;
                continue;
            }
            pos = valueEnd(in, type, value, end);
        }
    }

    /**
     * The offset just past the value of the element of {@code type} starting at {@code value}, inside a container whose
     * terminating NUL is at {@code end}: for the value types that are not containers (document, array, code with scope
     * are walked by the caller).
     *
     * @throws InvalidBsonException for an unknown type or a value that does not fit
     */
    static int valueEnd(ByteBuffer in, int type, int value, int end) {
        int next = switch (type) {
            case 0x01, 0x09, 0x11, 0x12 -> value + 8; // double, UTC datetime, timestamp, int64
            case 0x02, 0x0D, 0x0E -> stringEnd(in, value, end, type); // string, JavaScript, symbol
            case 0x05 -> binaryEnd(in, value, end);
            case 0x06, 0x0A, 0x7F, -1 -> value; // undefined, null, max key, min key
            case 0x07 -> value + 12; // ObjectId
            case 0x08 -> {
                if (value < end && in.get(value) != 0 && in.get(value) != 1) {
                    throw malformed("a boolean is " + in.get(value) + ", not 0 or 1", value);
                }
                yield value + 1;
            }
            case 0x0B -> nameEnd(in, nameEnd(in, value, end) + 1, end) + 1; // regex: pattern and options cstrings
            case 0x0C -> stringEnd(in, value, end, type) + 12; // DBPointer: string, ObjectId
            case 0x10 -> value + 4; // int32
            case 0x13 -> value + 16; // decimal128
            default -> throw malformed("unknown element type " + type, value - 1);
        };
        if (next > end) {
            throw malformed("a value of type " + type + " runs past the end of its document", value);
        }
        return next;
    }

    /**
     * The offset past a binary value: {@code int32 length, subtype, bytes}; the deprecated subtype 2 ("old binary")
     * repeats the length of its bytes inside them, which must agree, as the decoder requires.
     */
    private static int binaryEnd(ByteBuffer in, int at, int end) {
        int length = length(in, at, end, 0, 5);
        if (in.get(at + 4) == 2 && (length < 4 || in.getInt(at + 5) != length - 4)) {
            throw malformed("an old binary's (subtype 2) inner length does not match its length " + length, at);
        }
        return at + 5 + length;
    }

    /** The offset of the NUL ending the C string that starts at {@code from}, before {@code end}. */
    private static int nameEnd(ByteBuffer in, int from, int end) {
        for (int i = from; i < end; i++) {
            if (in.get(i) == 0) {
                return i;
            }
        }
        throw malformed("a name or C string has no terminating NUL inside its document", from);
    }

    /** The offset past a string value ({@code int32 length, bytes, NUL}) at {@code at}. */
    private static int stringEnd(ByteBuffer in, int at, int end, int type) {
        int length = length(in, at, end, 1, 4);
        int after = at + 4 + length;
        if (after > end || in.get(after - 1) != 0) {
            throw malformed("a string of type " + type + " is not NUL-terminated where its length says", at);
        }
        return after;
    }

    /**
     * The int32 length at {@code at}, at least {@code min}, of something that occupies {@code overhead + length} bytes
     * from {@code at}, which must all lie before {@code end} (the offset of its container's terminating NUL).
     */
    private static int length(ByteBuffer in, int at, int end, int min, int overhead) {
        if (at + 4 > end) {
            throw malformed("a length runs past the end of its document", at);
        }
        int length = in.getInt(at);
        if (length < min || length > end - at - overhead) {
            throw malformed("length " + length + " does not fit the " + (end - at - overhead) + " bytes that remain", at);
        }
        return length;
    }

    private static InvalidBsonException malformed(String message, int offset) {
        return new InvalidBsonException(message + " (at byte " + offset + ")", false);
    }

    private static InvalidBsonException tooDeep(int maxDepth, int offset) {
        return new InvalidBsonException("document nests deeper than " + maxDepth + " levels (at byte " + offset + ")", true);
    }
}
