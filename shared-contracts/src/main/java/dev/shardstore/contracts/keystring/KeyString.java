package dev.shardstore.contracts.keystring;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonValue;

/**
 * KeyString (docs/architecture.md "Documents, BSON order and keys"): an order-preserving byte encoding of BSON values and compound keys.
 * For any values {@code a} and {@code b}, {@code compare(encode(a), encode(b))} has the sign of
 * {@link dev.shardstore.contracts.bson.BsonOrder#compare BsonOrder.compare(a, b)}, and values equal
 * in that order (int 1, long 1, double 1.0, decimal 1.00; -0.0 and 0; NaN of any type; a Symbol and
 * the String of the same text) have identical encodings, so a unique index sees them as duplicates
 * as MongoDB does. Shard keys, {@code _id} and index keys are stored as these bytes, and chunk
 * ranges {@code [min, max)} become byte ranges.
 *
 * <p>Shape of one component: a type byte ordering the canonical type brackets (MinKey 0x0A,
 * Undefined 0x0F, Null 0x14, numbers 0x1E..0x35, String/Symbol 0x3C, Object 0x46, Array 0x50,
 * BinData 0x5A, ObjectId 0x64, Boolean 0x6E, Date 0x78, Timestamp 0x82, RegEx 0x8C, DBPointer 0x96,
 * JavaScript 0xA0, JavaScript with scope 0xAA, MaxKey 0xF0), then a body:
 * <ul>
 *   <li>numbers: see {@code NumberEncoder} (a class byte per sign and magnitude, integer part in
 *       binary, fraction or scientific digits in decimal, exact for every type);</li>
 *   <li>strings (also field names, RegEx pattern and options, JavaScript code): UTF-8 with bytes
 *       0x00 and 0x01 escaped as 0x01 0x01 and 0x01 0x02, ended by 0x00;</li>
 *   <li>documents: per element the type bracket byte, the field name, the value; then 0x00.
 *       Arrays: per element the value; then 0x00;</li>
 *   <li>BinData: 4-byte length, subtype, bytes. ObjectId: its 12 bytes. Boolean: 0x00 or 0x01.
 *       Date: 8 bytes, sign bit flipped. Timestamp: 8 bytes, unsigned. DBPointer: 4-byte UTF-8
 *       length of the namespace, the namespace as a string, the 12 id bytes. JavaScript with scope:
 *       code as a string, scope as a document;</li>
 *   <li>MinKey, MaxKey, Null, Undefined: the type byte alone.</li>
 * </ul>
 * Integers are big-endian throughout. Every component is prefix-free (no encoding is a proper
 * prefix of another), so a compound key is the concatenation of its components, a descending
 * component with every byte inverted. The format is persistent: changing it means re-encoding all
 * stored keys.
 */
public final class KeyString {
    private static final int EXPECTED_COMPONENT_SIZE = 16;

    private KeyString() {}

    /**
     * The encoding of one value; equal to {@code encode(List.of(value), Ordering.allAscending(1))}.
     *
     * @throws NullPointerException if {@code value} is null
     */
    public static byte[] encode(BsonValue value) {
        ByteSink out = new ByteSink(EXPECTED_COMPONENT_SIZE);
        ValueEncoder.write(out, Objects.requireNonNull(value, "value"));
        return out.toByteArray();
    }

    /**
     * The encoding of a compound key: the components' encodings concatenated, those of descending
     * components with every byte inverted. Keys of one ordering then compare component by
     * component, each in its direction.
     *
     * @throws IllegalArgumentException if {@code values} and {@code ordering} differ in size
     * @throws NullPointerException if a value is null
     */
    public static byte[] encode(List<? extends BsonValue> values, Ordering ordering) {
        if (values.size() != ordering.size()) {
            throw new IllegalArgumentException(
                    "key has " + values.size() + " components but the ordering " + ordering.size());
        }
        ByteSink out = new ByteSink(EXPECTED_COMPONENT_SIZE * values.size());
        for (int i = 0; i < values.size(); i++) {
            int start = out.size();
            ValueEncoder.write(out, Objects.requireNonNull(values.get(i), "value"));
            if (ordering.isDescending(i)) {
                out.invertFrom(start);
            }
        }
        return out.toByteArray();
    }

    /** Unsigned lexicographic comparison: negative, zero or positive as {@code a} sorts before, with or after {@code b}. */
    public static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    /**
     * The lowest bytes above {@code prefix} and above every key that starts with it ({@code prefix || 0xFF}): a
     * component's first byte, its type, is at most 0xF5 in either ordering, so no key extending {@code prefix} reaches
     * 0xFF there. The exclusive end of the keys with a given prefix (a point of an index's leading fields, a shard key
     * inside a longer index key).
     */
    public static byte[] afterPrefix(byte[] prefix) {
        byte[] after = Arrays.copyOf(prefix, prefix.length + 1);
        after[prefix.length] = (byte) 0xFF;
        return after;
    }

    /** {@link #afterPrefix} of the empty prefix: above every key, MaxKey and the keys that extend it included. */
    public static byte[] aboveEveryKey() {
        return afterPrefix(new byte[0]);
    }

    /** The encoding of MinKey, at or below the encoding of every value. */
    public static byte[] minKey() {
        return new byte[] {(byte) ValueEncoder.MIN_KEY};
    }

    /** The encoding of MaxKey, at or above the encoding of every value. */
    public static byte[] maxKey() {
        return new byte[] {(byte) ValueEncoder.MAX_KEY};
    }

    /**
     * The lowest key of an ordering, at or below every key of it: MinKey in each ascending and
     * MaxKey in each descending component (MongoDB's {@code KeyPattern::globalMin}).
     */
    public static byte[] minKey(Ordering ordering) {
        return encode(extremes(ordering, false), ordering);
    }

    /** The highest key of an ordering, at or above every key of it ({@code KeyPattern::globalMax}). */
    public static byte[] maxKey(Ordering ordering) {
        return encode(extremes(ordering, true), ordering);
    }

    private static List<BsonValue> extremes(Ordering ordering, boolean highest) {
        return ordering.directions().stream()
                .map(direction -> highest == (direction == Ordering.Direction.ASCENDING)
                        ? (BsonValue) new BsonMaxKey() : new BsonMinKey())
                .toList();
    }
}
