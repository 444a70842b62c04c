package dev.shardstore.contracts.hash;

import dev.shardstore.contracts.bson.BsonOrder;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.jspecify.annotations.Nullable;

/**
 * MongoDB's hash of a BSON value for hashed indexes and hashed shard keys (docs/architecture.md "Documents, BSON order and keys"; the
 * aggregation expression {@code $toHashedIndexKey}), so hashed chunk boundaries and placements equal
 * MongoDB's for the same values.
 *
 * <p>The hash is the first 8 bytes, read little-endian, of an MD5 over: the seed (int32 little-endian,
 * 0 by default), then the value as an element without a name — its canonical type rank
 * ({@link BsonOrder#typeRank}) as int32 little-endian, then its body. Every number is first reduced to a
 * 64-bit integer (truncated toward zero; NaN is 0; out-of-range values clamp), so {@code 1}, {@code 1L}
 * and {@code 1.9} hash alike. Documents and arrays hash each element with its field name (NUL-terminated;
 * arrays use "0", "1", …) followed by the end marker (rank 0 alone); code with scope hashes its code
 * characters (NUL-terminated, no length) and then its scope that way. Timestamps hash with their current
 * canonical rank (47), which MongoDB's published vectors predate. Every other type hashes its BSON value bytes as stored.
 * Thread-safe.
 */
public final class BsonHasher {
    /** MongoDB's default seed for hashed indexes. */
    public static final int DEFAULT_SEED = 0;

    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    /** Cloned per hash: {@code MessageDigest.getInstance} walks the security providers, a clone copies 100 bytes. */
    private static final MessageDigest MD5_PROTOTYPE = newMd5();

    private BsonHasher() {}

    /** The hash of {@code value} with the default seed. */
    public static long hash64(BsonValue value) {
        return hash64(value, DEFAULT_SEED);
    }

    /** The hash of {@code value} with {@code seed}. */
    public static long hash64(BsonValue value, int seed) {
        Input in = new Input();
        in.int32(seed);
        element(in, null, value);
        byte[] digest = md5().digest(in.toByteArray());
        long hash = 0;
        for (int i = 7; i >= 0; i--) {
            hash = hash << 8 | digest[i] & 0xFF;
        }
        return hash;
    }

    private static void element(Input in, @Nullable String name, BsonValue value) {
        in.int32(BsonOrder.typeRank(value.getBsonType()));
        if (name != null) {
            in.cstring(name);
        }
        switch (value.getBsonType()) {
            case DOCUMENT -> elements(in, value.asDocument());
            case ARRAY -> {
                int i = 0;
                for (BsonValue item : value.asArray()) {
                    element(in, Integer.toString(i++), item);
                }
                endMarker(in);
            }
            case JAVASCRIPT_WITH_SCOPE -> {
                in.cstring(value.asJavaScriptWithScope().getCode()); // the code's characters and NUL, no length
                elements(in, value.asJavaScriptWithScope().getScope());
            }
            case INT32, INT64, DOUBLE, DECIMAL128 -> in.int64(toLongForHash(value));
            case STRING -> in.string(value.asString().getValue());
            case SYMBOL -> in.string(value.asSymbol().getSymbol());
            case JAVASCRIPT -> in.string(value.asJavaScript().getCode());
            case BOOLEAN -> in.write(value.asBoolean().getValue() ? 1 : 0);
            case DATE_TIME -> in.int64(value.asDateTime().getValue());
            case TIMESTAMP -> in.int64(value.asTimestamp().getValue());
            case OBJECT_ID -> in.writeBytes(value.asObjectId().getValue().toByteArray());
            case BINARY -> binary(in, value.asBinary());
            case REGULAR_EXPRESSION -> {
                in.cstring(value.asRegularExpression().getPattern());
                in.cstring(value.asRegularExpression().getOptions());
            }
            case DB_POINTER -> {
                in.string(value.asDBPointer().getNamespace());
                in.writeBytes(value.asDBPointer().getId().toByteArray());
            }
            case MIN_KEY, MAX_KEY, NULL, UNDEFINED, END_OF_DOCUMENT -> { } // no value bytes
        }
    }

    private static void elements(Input in, BsonDocument doc) {
        for (Map.Entry<String, BsonValue> e : doc.entrySet()) {
            element(in, e.getKey(), e.getValue());
        }
        endMarker(in);
    }

    /** The end-of-document element: type rank 0 and nothing else (it has no name, not even a NUL). */
    private static void endMarker(Input in) {
        in.int32(0);
    }

    /** BinData as stored: int32 length, subtype, bytes (the old binary subtype repeats the length inside). */
    private static void binary(Input in, BsonBinary binary) {
        byte[] data = binary.getData();
        boolean old = binary.getType() == BsonBinarySubType.OLD_BINARY.getValue();
        in.int32(old ? data.length + 4 : data.length);
        in.write(binary.getType());
        if (old) {
            in.int32(data.length);
        }
        in.writeBytes(data);
    }

    /** A number as the 64-bit integer MongoDB hashes: truncated toward zero, NaN as 0, clamped to the long range. */
    static long toLongForHash(BsonValue number) {
        return switch (number.getBsonType()) {
            case INT32 -> number.asInt32().getValue();
            case INT64 -> number.asInt64().getValue();
            case DOUBLE -> {
                double d = number.asDouble().getValue();
                yield Double.isNaN(d) ? 0 : (long) d; // Java's cast truncates and clamps, as MongoDB's hash does
            }
            case DECIMAL128 -> {
                Decimal128 d = number.asDecimal128().getValue();
                if (d.isNaN()) {
                    yield 0;
                }
                if (d.isInfinite()) {
                    yield d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
                }
                BigDecimal exact;
                try {
                    exact = d.bigDecimalValue();
                } catch (ArithmeticException negativeZero) {
                    exact = BigDecimal.ZERO;
                }
                yield exact.max(LONG_MIN).min(LONG_MAX).longValue();
            }
            default -> throw new IllegalArgumentException("not a number: " + number.getBsonType());
        };
    }

    private static MessageDigest md5() {
        try {
            return (MessageDigest) MD5_PROTOTYPE.clone();
        } catch (CloneNotSupportedException e) {
            return newMd5(); // a provider whose MD5 cannot be cloned: the slower way
        }
    }

    private static MessageDigest newMd5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime provides MD5", e);
        }
    }

    /** Little-endian byte builder for the digest input. */
    private static final class Input extends ByteArrayOutputStream {
        void int32(int v) {
            write(v);
            write(v >>> 8);
            write(v >>> 16);
            write(v >>> 24);
        }

        void int64(long v) {
            int32((int) v);
            int32((int) (v >>> 32));
        }

        void cstring(String s) {
            writeBytes(s.getBytes(StandardCharsets.UTF_8));
            write(0);
        }

        /** A BSON string: int32 byte length including the NUL, the UTF-8 bytes, NUL. */
        void string(String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            int32(utf8.length + 1);
            writeBytes(utf8);
            write(0);
        }
    }
}
