package dev.shardstore.contracts.bson;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import org.bson.BsonDocument;
import org.bson.BsonInvalidOperationException;
import org.bson.BsonRegularExpression;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.DecoderContext;
import org.bson.json.JsonParseException;
import org.bson.json.JsonReader;

/**
 * MongoDB Extended JSON v2 in and out (docs/architecture.md "Documents, BSON order and keys"): parses canonical or relaxed input with the
 * BSON library's {@link JsonReader}, writes relaxed mode exactly as the library's writer would, with Jackson's
 * generator ({@link RelaxedJsonWriter}).
 *
 * <p>Parsing enforces {@link BsonLimits} before anything recursive runs: text longer than
 * {@link BsonLimits#MAX_MESSAGE_SIZE} is refused without being read, and the reader counts the nesting as it
 * goes, so input deeper than {@link BsonLimits#MAX_DEPTH} is refused at the first level too many (the
 * library's decoder recurses once per level; it never gets deeper than the limit).
 */
public final class ExtendedJson {
    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private ExtendedJson() {}

    /**
     * Parses one JSON object.
     *
     * @throws CommandException {@code FailedToParse} (9) whose message names the line and column of
     *                          the first offending character; {@code Overflow} (15) for nesting deeper than
     *                          {@link BsonLimits#MAX_DEPTH}, naming where; {@code BSONObjectTooLarge} (10334) for
     *                          text longer than {@link BsonLimits#MAX_MESSAGE_SIZE} characters
     */
    public static BsonDocument parse(String json) {
        if (json.length() > BsonLimits.MAX_MESSAGE_SIZE) {
            throw new CommandException(ErrorCode.BSONObjectTooLarge,
                    "JSON of " + json.length() + " characters is over the limit of " + BsonLimits.MAX_MESSAGE_SIZE);
        }
        try {
            return CODEC.decode(new DepthLimitedReader(json), DecoderContext.builder().build());
        } catch (TooDeep e) {
            throw BsonLimits.tooDeep(BsonLimits.MAX_DEPTH, "JSON at " + locate(json));
        } catch (JsonParseException | BsonInvalidOperationException | IllegalArgumentException e) {
            throw new CommandException(ErrorCode.FailedToParse, "malformed JSON at " + locate(json) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Relaxed Extended JSON of a document: the string the BSON library's relaxed writer gives, written by
     * {@link RelaxedJsonWriter} in a fraction of the time.
     */
    public static String toJson(BsonDocument doc) {
        return RelaxedJsonWriter.write(doc);
    }

    /**
     * Re-reads the input through a counting reader to find where parsing stopped. Only runs on the
     * error path, so the fast path parses from the string directly.
     */
    private static String locate(String json) {
        PositionReader reader = new PositionReader(new StringReader(json));
        try {
            CODEC.decode(new DepthLimitedReader(reader), DecoderContext.builder().build());
            return "end of input";
        } catch (RuntimeException e) {
            return reader.describe();
        }
    }

    /**
     * A {@link JsonReader} that counts open objects and arrays and stops at the first one past
     * {@link BsonLimits#MAX_DEPTH}; the decoder above it recurses once per level, so it never recurses deeper.
     * It also refuses what JSON can say and BSON cannot: a NUL character in a field name or a regular expression
     * (both are C strings in BSON, so encoding the document would fail later).
     */
    private static final class DepthLimitedReader extends JsonReader {
        private int depth;

        DepthLimitedReader(String json) {
            super(json);
        }

        DepthLimitedReader(Reader json) {
            super(json);
        }

        @Override
        protected void doReadStartDocument() {
            enter();
            super.doReadStartDocument();
        }

        @Override
        protected void doReadStartArray() {
            enter();
            super.doReadStartArray();
        }

        @Override
        protected void doReadEndDocument() {
            depth--;
            super.doReadEndDocument();
        }

        @Override
        protected void doReadEndArray() {
            depth--;
            super.doReadEndArray();
        }

        @Override
        public String readName() {
            return noNul(super.readName(), "field name");
        }

        @Override
        protected BsonRegularExpression doReadRegularExpression() {
            BsonRegularExpression regex = super.doReadRegularExpression();
            noNul(regex.getPattern(), "regular expression");
            noNul(regex.getOptions(), "regular expression option");
            return regex;
        }

        private static String noNul(String text, String what) {
            if (text.indexOf('\0') >= 0) {
                throw new JsonParseException("a " + what + " cannot contain a NUL character: '" + text.replace("\0", "\\u0000") + "'");
            }
            return text;
        }

        private void enter() {
            if (++depth > BsonLimits.MAX_DEPTH) {
                throw new TooDeep();
            }
        }
    }

    /** Thrown by {@link DepthLimitedReader}; becomes {@code Overflow} with the position once the reader is gone. */
    private static final class TooDeep extends RuntimeException {
        TooDeep() {
            super(null, null, false, false);
        }
    }

    /** A reader that remembers the line and column of the last character handed out. */
    private static final class PositionReader extends Reader {
        private final Reader in;
        private int line = 1;
        private int column = 0;
        private long offset = -1;

        PositionReader(Reader in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int c = in.read();
            if (c >= 0) {
                offset++;
                if (c == '\n') {
                    line++;
                    column = 0;
                } else {
                    column++;
                }
            }
            return c;
        }

        @Override
        public int read(char[] buf, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            int c = read();
            if (c < 0) {
                return -1;
            }
            buf[off] = (char) c;
            return 1;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }

        String describe() {
            return "line " + line + ", column " + Math.max(column, 1) + " (offset " + Math.max(offset, 0) + ")";
        }
    }
}
