package dev.shardstore.contracts.bson;

import java.io.StringWriter;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriter;
import org.bson.json.JsonWriterSettings;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.PrettyPrinter;
import tools.jackson.core.SerializableString;
import tools.jackson.core.io.CharacterEscapes;
import tools.jackson.core.io.SerializedString;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.MinimalPrettyPrinter;

/**
 * Relaxed Extended JSON v2 written with Jackson's streaming generator, character for character what the BSON library's
 * {@link JsonWriter} writes in {@link JsonMode#RELAXED} (its separators {@code ": "} and {@code ", "}, its escapes,
 * its number formats; {@code RelaxedJsonWriterTest} compares the two).
 *
 * <p>Documents, arrays, strings, 32- and 64-bit integers, booleans, null, doubles written without an exponent,
 * timestamps, binary and ObjectIds, which make up nearly every reply, go straight to the generator. Every other value
 * (dates, decimals, NaN and the infinities, regular expressions, min and max keys, …) is written by the BSON library
 * itself and inserted as it wrote it. Why: the library's writer costs about 16 ns per character of output, a quarter of the
 * router's CPU for the REST replies of a scatter-gather find; this one about a seventh of that (docs/benchmarks.md,
 * round 7). Thread-safe.
 */
final class RelaxedJsonWriter {
    private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();
    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();
    private static final JsonFactory FACTORY = JsonFactory.builder().build();
    private static final ObjectWriteContext CONTEXT = new ObjectWriteContext.Base() {
        @Override
        public CharacterEscapes getCharacterEscapes() {
            return LibraryEscapes.INSTANCE;
        }

        @Override
        public PrettyPrinter getPrettyPrinter() {
            return LibraryLayout.INSTANCE;
        }

        @Override
        public boolean hasPrettyPrinter() {
            return true;
        }
    };

    private RelaxedJsonWriter() {}

    /** {@code doc} as relaxed Extended JSON, the same string {@code doc.toJson(relaxed settings)} gives. */
    static String write(BsonDocument doc) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator generator = FACTORY.createGenerator(CONTEXT, out)) {
            document(generator, doc);
        }
        return out.toString();
    }

    private static void document(JsonGenerator generator, BsonDocument doc) {
        generator.writeStartObject();
        for (Map.Entry<String, BsonValue> field : doc.entrySet()) {
            generator.writeName(field.getKey());
            value(generator, field.getValue());
        }
        generator.writeEndObject();
    }

    private static void value(JsonGenerator generator, BsonValue value) {
        switch (value.getBsonType()) {
            case DOCUMENT -> document(generator, value.asDocument());
            case ARRAY -> {
                generator.writeStartArray();
                for (BsonValue element : value.asArray()) {
                    value(generator, element);
                }
                generator.writeEndArray();
            }
            case STRING -> generator.writeString(value.asString().getValue());
            case INT32 -> generator.writeNumber(value.asInt32().getValue());
            case INT64 -> generator.writeNumber(value.asInt64().getValue());
            case BOOLEAN -> generator.writeBoolean(value.asBoolean().getValue());
            case NULL -> generator.writeNull();
            case DOUBLE -> {
                // a finite double's Double.toString is the library's format unless it has an exponent (the library
                // writes "1.0E+21"); NaN and the infinities are {"$numberDouble": …}
                double d = value.asDouble().getValue();
                String plain = Double.toString(d);
                if (Double.isFinite(d) && plain.indexOf('E') < 0) {
                    generator.writeNumber(plain);
                } else {
                    generator.writeRawValue(byTheLibrary(value));
                }
            }
            // the wrappers every reply's $clusterTime and operationTime carry, and the commonest in documents
            case TIMESTAMP -> {
                generator.writeStartObject();
                generator.writeName("$timestamp");
                generator.writeStartObject();
                generator.writeName("t");
                generator.writeNumber(Integer.toUnsignedLong(value.asTimestamp().getTime()));
                generator.writeName("i");
                generator.writeNumber(Integer.toUnsignedLong(value.asTimestamp().getInc()));
                generator.writeEndObject();
                generator.writeEndObject();
            }
            case BINARY -> {
                generator.writeStartObject();
                generator.writeName("$binary");
                generator.writeStartObject();
                generator.writeName("base64");
                generator.writeString(Base64.getEncoder().encodeToString(value.asBinary().getData()));
                generator.writeName("subType");
                generator.writeString(HexFormat.of().withUpperCase().toHexDigits(value.asBinary().getType()));
                generator.writeEndObject();
                generator.writeEndObject();
            }
            case OBJECT_ID -> {
                generator.writeStartObject();
                generator.writeName("$oid");
                generator.writeString(value.asObjectId().getValue().toHexString());
                generator.writeEndObject();
            }
            default -> generator.writeRawValue(byTheLibrary(value));
        }
    }

    /** One value as the BSON library writes it: the {@code X} of its {@code {"v": X}}. */
    private static String byTheLibrary(BsonValue value) {
        StringWriter out = new StringWriter(64);
        CODEC.encode(new JsonWriter(out, RELAXED), new BsonDocument("v", value), EncoderContext.builder().build());
        String wrapped = out.toString();
        return wrapped.substring("{\"v\": ".length(), wrapped.length() - 1);
    }

    /**
     * The library's escapes: {@code \"}, {@code \\}, {@code \b \f \n \r \t}, and {@code \}{@code u} with four lowercase
     * hex digits for every other character whose Unicode category is not a letter, digit, number, space separator,
     * punctuation or symbol (controls, format characters, marks, modifier letters, line and paragraph separators,
     * surrogates, private use, unassigned).
     */
    private static final class LibraryEscapes extends CharacterEscapes {
        private static final char[] HEX = "0123456789abcdef".toCharArray();
        static final LibraryEscapes INSTANCE = new LibraryEscapes();
        private final int[] ascii;

        private LibraryEscapes() {
            ascii = Arrays.copyOf(CharacterEscapes.standardAsciiEscapesForJSON(), 128);
            for (int c = 0; c < 128; c++) {
                if (ascii[c] == CharacterEscapes.ESCAPE_STANDARD || c == 0x7F) {
                    ascii[c] = CharacterEscapes.ESCAPE_CUSTOM; // Jackson's own escapes have upper-case hex digits
                }
            }
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public @Nullable SerializableString getEscapeSequence(int c) {
            if (written(c)) {
                return null;
            }
            char[] escape = {'\\', 'u', HEX[(c >> 12) & 0xF], HEX[(c >> 8) & 0xF], HEX[(c >> 4) & 0xF], HEX[c & 0xF]};
            return new SerializedString(new String(escape));
        }

        private static boolean written(int c) {
            return switch (Character.getType(c)) {
                case Character.UPPERCASE_LETTER, Character.LOWERCASE_LETTER, Character.TITLECASE_LETTER, Character.OTHER_LETTER,
                     Character.DECIMAL_DIGIT_NUMBER, Character.LETTER_NUMBER, Character.OTHER_NUMBER, Character.SPACE_SEPARATOR,
                     Character.CONNECTOR_PUNCTUATION, Character.DASH_PUNCTUATION, Character.START_PUNCTUATION,
                     Character.END_PUNCTUATION, Character.INITIAL_QUOTE_PUNCTUATION, Character.FINAL_QUOTE_PUNCTUATION,
                     Character.OTHER_PUNCTUATION, Character.MATH_SYMBOL, Character.CURRENCY_SYMBOL, Character.MODIFIER_SYMBOL,
                     Character.OTHER_SYMBOL -> true;
                default -> false;
            };
        }
    }

    /**
     * The library's layout, {@code {"a": 1, "b": [1, 2]}}: Jackson's minimal layout (nothing inside the brackets) with
     * {@code ": "} and {@code ", "} between entries, where Jackson writes {@code :} and {@code ,} alone.
     */
    private static final class LibraryLayout extends MinimalPrettyPrinter {
        static final LibraryLayout INSTANCE = new LibraryLayout();

        @Override
        public void writeObjectNameValueSeparator(JsonGenerator g) {
            g.writeRaw(": ");
        }

        @Override
        public void writeObjectEntrySeparator(JsonGenerator g) {
            g.writeRaw(", ");
        }

        @Override
        public void writeArrayValueSeparator(JsonGenerator g) {
            g.writeRaw(", ");
        }
    }
}
