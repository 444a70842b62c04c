package dev.shardstore.contracts.keystring;

import java.util.Map;
import org.bson.BsonBinary;
import org.bson.BsonDbPointer;
import org.bson.BsonDocument;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonRegularExpression;
import org.bson.BsonType;
import org.bson.BsonValue;

/**
 * Writes one BSON value as a KeyString component: a type byte that orders the canonical type
 * brackets of {@code BsonOrder}, then a prefix-free body ordered as {@code BsonOrder} orders values
 * within the bracket. Numbers are {@link NumberEncoder}'s.
 */
final class ValueEncoder {
    static final int MIN_KEY = 0x0A;
    private static final int UNDEFINED = 0x0F;
    private static final int NULL = 0x14;
    private static final int STRING = 0x3C; // Symbol too
    private static final int OBJECT = 0x46;
    private static final int ARRAY = 0x50;
    private static final int BINARY = 0x5A;
    private static final int OBJECT_ID = 0x64;
    private static final int BOOLEAN = 0x6E;
    private static final int DATE = 0x78;
    private static final int TIMESTAMP = 0x82;
    private static final int REGEX = 0x8C;
    private static final int DB_POINTER = 0x96;
    private static final int JAVASCRIPT = 0xA0;
    private static final int JAVASCRIPT_WITH_SCOPE = 0xAA;
    static final int MAX_KEY = 0xF0;

    /** Ends strings, documents and arrays: below every character byte and every type byte. */
    private static final int END = 0x00;
    /** Escapes the character bytes 0x00 and 0x01, which are written as 0x01 0x01 and 0x01 0x02. */
    private static final int ESCAPE = 0x01;

    private ValueEncoder() {}

    static void write(ByteSink out, BsonValue value) {
        BsonType type = value.getBsonType();
        switch (type) {
            case INT32, INT64, DOUBLE, DECIMAL128 -> NumberEncoder.write(out, value);
            default -> {
                out.write(typeByte(type));
                writeBody(out, value);
            }
        }
    }

    /** The byte of a type's bracket, increasing with {@code BsonOrder.typeRank}. */
    private static int typeByte(BsonType type) {
        return switch (type) {
            case MIN_KEY -> MIN_KEY;
            case UNDEFINED -> UNDEFINED;
            case NULL -> NULL;
            case INT32, INT64, DOUBLE, DECIMAL128 -> NumberEncoder.NAN;
            case STRING, SYMBOL -> STRING;
            case DOCUMENT -> OBJECT;
            case ARRAY -> ARRAY;
            case BINARY -> BINARY;
            case OBJECT_ID -> OBJECT_ID;
            case BOOLEAN -> BOOLEAN;
            case DATE_TIME -> DATE;
            case TIMESTAMP -> TIMESTAMP;
            case REGULAR_EXPRESSION -> REGEX;
            case DB_POINTER -> DB_POINTER;
            case JAVASCRIPT -> JAVASCRIPT;
            case JAVASCRIPT_WITH_SCOPE -> JAVASCRIPT_WITH_SCOPE;
            case MAX_KEY -> MAX_KEY;
            case END_OF_DOCUMENT -> throw new IllegalArgumentException("END_OF_DOCUMENT is not a value");
        };
    }

    private static void writeBody(ByteSink out, BsonValue value) {
        switch (value.getBsonType()) {
            case STRING -> writeString(out, value.asString().getValue());
            case SYMBOL -> writeString(out, value.asSymbol().getSymbol());
            case DOCUMENT -> writeDocument(out, value.asDocument());
            case ARRAY -> {
                for (BsonValue element : value.asArray()) {
                    write(out, element);
                }
                out.write(END);
            }
            case BINARY -> {
                BsonBinary binary = value.asBinary();
                out.writeInt(binary.getData().length);
                out.write(binary.getType());
                out.writeBytes(binary.getData());
            }
            case OBJECT_ID -> out.writeBytes(value.asObjectId().getValue().toByteArray());
            case BOOLEAN -> out.write(value.asBoolean().getValue() ? 1 : 0);
            case DATE_TIME -> out.writeLong(value.asDateTime().getValue() ^ Long.MIN_VALUE); // signed -> unsigned order
            case TIMESTAMP -> out.writeLong(value.asTimestamp().getValue()); // compared unsigned
            case REGULAR_EXPRESSION -> {
                BsonRegularExpression regex = value.asRegularExpression();
                writeString(out, regex.getPattern());
                writeString(out, regex.getOptions());
            }
            case DB_POINTER -> {
                BsonDbPointer pointer = value.asDBPointer();
                int lengthAt = out.size();
                out.writeInt(0);
                out.setInt(lengthAt, writeString(out, pointer.getNamespace()));
                out.writeBytes(pointer.getId().toByteArray());
            }
            case JAVASCRIPT -> writeString(out, value.asJavaScript().getCode());
            case JAVASCRIPT_WITH_SCOPE -> {
                BsonJavaScriptWithScope code = value.asJavaScriptWithScope();
                writeString(out, code.getCode());
                writeDocument(out, code.getScope());
            }
            default -> { } // MinKey, MaxKey, Null, Undefined: the type byte says it all
        }
    }

    /** Each element as (type bracket, field name, value), as MongoDB compares them; then {@link #END}. */
    private static void writeDocument(ByteSink out, BsonDocument document) {
        for (Map.Entry<String, BsonValue> element : document.entrySet()) {
            out.write(typeByte(element.getValue().getBsonType()));
            writeString(out, element.getKey());
            write(out, element.getValue());
        }
        out.write(END);
    }

    /**
     * Writes {@code s} as UTF-8 with 0x00 and 0x01 escaped, then {@link #END}; unsigned byte order is
     * then code point order. A lone surrogate is written as its own 3-byte code, as the BSON library
     * writes it to MongoDB.
     *
     * @return the length of the unescaped UTF-8, which orders DBPointer namespaces
     */
    private static int writeString(ByteSink out, String s) {
        int utf8Length = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= ESCAPE) {
                out.write(ESCAPE);
                out.write(c + 1);
                utf8Length += 1;
            } else if (c < 0x80) {
                out.write(c);
                utf8Length += 1;
            } else if (c < 0x800) {
                out.write(0xC0 | c >>> 6);
                out.write(0x80 | c & 0x3F);
                utf8Length += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                int codePoint = Character.toCodePoint(c, s.charAt(++i));
                out.write(0xF0 | codePoint >>> 18);
                out.write(0x80 | codePoint >>> 12 & 0x3F);
                out.write(0x80 | codePoint >>> 6 & 0x3F);
                out.write(0x80 | codePoint & 0x3F);
                utf8Length += 4;
            } else {
                out.write(0xE0 | c >>> 12);
                out.write(0x80 | c >>> 6 & 0x3F);
                out.write(0x80 | c & 0x3F);
                utf8Length += 3;
            }
        }
        out.write(END);
        return utf8Length;
    }
}
