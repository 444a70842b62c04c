package dev.shardstore.contracts.bson;

import java.math.BigDecimal;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.bson.BsonBinary;
import org.bson.BsonDbPointer;
import org.bson.BsonDocument;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonRegularExpression;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * MongoDB's total order over BSON values (docs/architecture.md "Documents, BSON order and keys"): first by canonical type bracket
 * (MinKey &lt; Undefined &lt; Null &lt; numbers &lt; String/Symbol &lt; Object &lt; Array &lt; BinData &lt;
 * ObjectId &lt; Boolean &lt; Date &lt; Timestamp &lt; RegEx &lt; DBPointer &lt; JavaScript &lt;
 * JavaScriptWithScope &lt; MaxKey), then by value within the bracket, as MongoDB's
 * {@code BSONElement::compareElementValues} does:
 * <ul>
 *   <li>numbers of any type compare by exact mathematical value; NaN equals NaN and sorts below every
 *       other number; -0.0 equals 0;</li>
 *   <li>strings compare by Unicode code point (= UTF-8 byte order, no collation);</li>
 *   <li>documents compare element by element (type bracket, then field name, then value), then by length;
 *       arrays likewise by position;</li>
 *   <li>BinData by length, then subtype, then bytes; ObjectId by its 12 bytes; Timestamp as unsigned 64-bit;
 *       RegEx by pattern then options.</li>
 * </ul>
 * This is the order of whole values. Query comparison operators and sort add array rules on top
 * (the query engine's concern); the KeyString encoding must agree with this order byte for byte.
 */
public final class BsonOrder {
    /** The order as a {@link Comparator}. */
    public static final Comparator<BsonValue> COMPARATOR = BsonOrder::compare;

    private BsonOrder() {}

    /**
     * The canonical type rank: equal ranks compare by value, unequal ranks by rank alone.
     * Numbers share one rank, as do String and Symbol.
     */
    public static int typeRank(BsonType type) {
        return switch (type) {
            case MIN_KEY -> -1;
            case END_OF_DOCUMENT, UNDEFINED -> 0;
            case NULL -> 5;
            case INT32, INT64, DOUBLE, DECIMAL128 -> 10;
            case STRING, SYMBOL -> 15;
            case DOCUMENT -> 20;
            case ARRAY -> 25;
            case BINARY -> 30;
            case OBJECT_ID -> 35;
            case BOOLEAN -> 40;
            case DATE_TIME -> 45;
            case TIMESTAMP -> 47;
            case REGULAR_EXPRESSION -> 50;
            case DB_POINTER -> 55;
            case JAVASCRIPT -> 60;
            case JAVASCRIPT_WITH_SCOPE -> 65;
            case MAX_KEY -> 127;
        };
    }

    /** Negative, zero or positive as {@code a} sorts before, with or after {@code b} (the simple collation). */
    public static int compare(BsonValue a, BsonValue b) {
        return compare(a, b, Collation.SIMPLE);
    }

    /**
     * The order under {@code collation}: as {@link #compare(BsonValue, BsonValue)}, except that String and Symbol
     * values compare with {@link Collation#compareStrings}, also inside documents and arrays, as MongoDB compares
     * collation keys; field names, regular expressions and code stay binary (MongoDB manual, "Collation").
     */
    public static int compare(BsonValue a, BsonValue b, Collation collation) {
        int rankA = typeRank(a.getBsonType());
        int rankB = typeRank(b.getBsonType());
        if (rankA != rankB) {
            return Integer.compare(rankA, rankB);
        }
        return switch (a.getBsonType()) {
            case MIN_KEY, MAX_KEY, NULL, UNDEFINED, END_OF_DOCUMENT -> 0;
            case INT32, INT64, DOUBLE, DECIMAL128 -> compareNumbers(a, b);
            case STRING, SYMBOL -> collation.compareStrings(stringOf(a), stringOf(b));
            case DOCUMENT -> compareDocuments(a.asDocument(), b.asDocument(), collation);
            case ARRAY -> compareArrays(a.asArray().getValues(), b.asArray().getValues(), collation);
            case BINARY -> compareBinary(a.asBinary(), b.asBinary());
            case OBJECT_ID -> a.asObjectId().getValue().compareTo(b.asObjectId().getValue());
            case BOOLEAN -> Boolean.compare(a.asBoolean().getValue(), b.asBoolean().getValue());
            case DATE_TIME -> Long.compare(a.asDateTime().getValue(), b.asDateTime().getValue());
            case TIMESTAMP -> Long.compareUnsigned(a.asTimestamp().getValue(), b.asTimestamp().getValue());
            case REGULAR_EXPRESSION -> compareRegex(a.asRegularExpression(), b.asRegularExpression());
            case DB_POINTER -> compareDbPointer(a.asDBPointer(), b.asDBPointer());
            case JAVASCRIPT -> compareStrings(a.asJavaScript().getCode(), b.asJavaScript().getCode());
            case JAVASCRIPT_WITH_SCOPE -> compareCodeWithScope(a.asJavaScriptWithScope(), b.asJavaScriptWithScope(), collation);
        };
    }

    /** Exact comparison of two numeric values of any BSON numeric type (NaN lowest, -0 == 0). */
    public static int compareNumbers(BsonValue a, BsonValue b) {
        BsonType ta = a.getBsonType();
        BsonType tb = b.getBsonType();
        if (isIntegral(ta) && isIntegral(tb)) {
            return Long.compare(a.asNumber().longValue(), b.asNumber().longValue());
        }
        if (ta == BsonType.DOUBLE && tb == BsonType.DOUBLE) {
            return compareDoubles(a.asDouble().getValue(), b.asDouble().getValue());
        }
        boolean nanA = isNaN(a);
        boolean nanB = isNaN(b);
        if (nanA || nanB) {
            return Boolean.compare(!nanA, !nanB);
        }
        int infA = infinitySign(a);
        int infB = infinitySign(b);
        if (infA != 0 || infB != 0) {
            return Integer.compare(infA, infB);
        }
        return exactValue(a).compareTo(exactValue(b));
    }

    /**
     * Compares strings by Unicode code point, which is the byte order of their UTF-8 as MongoDB
     * compares it. A lone surrogate counts as its own code point (U+D800..U+DFFF), because the BSON
     * library writes it as that 3-byte sequence.
     */
    public static int compareStrings(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char ca = a.charAt(i);
            char cb = b.charAt(i);
            if (ca != cb) {
                if (!Character.isSurrogate(ca) && !Character.isSurrogate(cb)) {
                    return Character.compare(ca, cb);
                }
                // A differing low surrogate after a common high surrogate: compare from the pair's start.
                boolean inPair = i > 0 && Character.isHighSurrogate(a.charAt(i - 1))
                        && (Character.isLowSurrogate(ca) || Character.isLowSurrogate(cb));
                int at = inPair ? i - 1 : i;
                return Integer.compare(a.codePointAt(at), b.codePointAt(at));
            }
        }
        return Integer.compare(a.length(), b.length());
    }

    /** The length of {@code s} in UTF-8 as the BSON library writes it (lone surrogates take 3 bytes). */
    private static int utf8Length(String s) {
        int length = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                length += 1;
            } else if (c < 0x800) {
                length += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                length += 4;
                i++;
            } else {
                length += 3;
            }
        }
        return length;
    }

    private static int compareDoubles(double x, double y) {
        if (Double.isNaN(x) || Double.isNaN(y)) {
            return Boolean.compare(!Double.isNaN(x), !Double.isNaN(y));
        }
        return x < y ? -1 : (x > y ? 1 : 0); // treats -0.0 == 0.0, unlike Double.compare
    }

    private static boolean isIntegral(BsonType t) {
        return t == BsonType.INT32 || t == BsonType.INT64;
    }

    private static boolean isNaN(BsonValue v) {
        return switch (v.getBsonType()) {
            case DOUBLE -> Double.isNaN(v.asDouble().getValue());
            case DECIMAL128 -> v.asDecimal128().getValue().isNaN();
            default -> false;
        };
    }

    /** -1 for negative infinity, 1 for positive infinity, 0 for a finite value. */
    private static int infinitySign(BsonValue v) {
        return switch (v.getBsonType()) {
            case DOUBLE -> {
                double d = v.asDouble().getValue();
                yield Double.isInfinite(d) ? (d > 0 ? 1 : -1) : 0;
            }
            case DECIMAL128 -> {
                Decimal128 d = v.asDecimal128().getValue();
                yield d.isInfinite() ? (d.isNegative() ? -1 : 1) : 0;
            }
            default -> 0;
        };
    }

    /** The exact value of a finite number; Decimal128's negative zero becomes 0. */
    static BigDecimal exactValue(BsonValue v) {
        return switch (v.getBsonType()) {
            case INT32 -> BigDecimal.valueOf(v.asInt32().getValue());
            case INT64 -> BigDecimal.valueOf(v.asInt64().getValue());
            case DOUBLE -> new BigDecimal(v.asDouble().getValue());
            case DECIMAL128 -> {
                Decimal128 d = v.asDecimal128().getValue();
                try {
                    yield d.bigDecimalValue();
                } catch (ArithmeticException negativeZero) {
                    yield BigDecimal.ZERO;
                }
            }
            default -> throw new IllegalArgumentException("not a number: " + v.getBsonType());
        };
    }

    private static String stringOf(BsonValue v) {
        return v.isString() ? v.asString().getValue() : v.asSymbol().getSymbol();
    }

    private static int compareDocuments(BsonDocument a, BsonDocument b, Collation collation) {
        Iterator<Map.Entry<String, BsonValue>> ia = a.entrySet().iterator();
        Iterator<Map.Entry<String, BsonValue>> ib = b.entrySet().iterator();
        while (ia.hasNext() && ib.hasNext()) {
            Map.Entry<String, BsonValue> ea = ia.next();
            Map.Entry<String, BsonValue> eb = ib.next();
            int c = Integer.compare(typeRank(ea.getValue().getBsonType()), typeRank(eb.getValue().getBsonType()));
            if (c == 0) {
                c = compareStrings(ea.getKey(), eb.getKey());
            }
            if (c == 0) {
                c = compare(ea.getValue(), eb.getValue(), collation);
            }
            if (c != 0) {
                return c;
            }
        }
        return Boolean.compare(ia.hasNext(), ib.hasNext());
    }

    private static int compareArrays(List<BsonValue> a, List<BsonValue> b, Collation collation) {
        int n = Math.min(a.size(), b.size());
        for (int i = 0; i < n; i++) {
            int c = compare(a.get(i), b.get(i), collation);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    private static int compareBinary(BsonBinary a, BsonBinary b) {
        int c = Integer.compare(a.getData().length, b.getData().length);
        if (c == 0) {
            c = Integer.compare(a.getType() & 0xFF, b.getType() & 0xFF);
        }
        return c != 0 ? c : java.util.Arrays.compareUnsigned(a.getData(), b.getData());
    }

    private static int compareRegex(BsonRegularExpression a, BsonRegularExpression b) {
        int c = compareStrings(a.getPattern(), b.getPattern());
        return c != 0 ? c : compareStrings(a.getOptions(), b.getOptions());
    }

    private static int compareDbPointer(BsonDbPointer a, BsonDbPointer b) {
        // MongoDB compares DBPointer values by size first: the namespace's UTF-8 length.
        int c = Integer.compare(utf8Length(a.getNamespace()), utf8Length(b.getNamespace()));
        if (c == 0) {
            c = compareStrings(a.getNamespace(), b.getNamespace());
        }
        return c != 0 ? c : a.getId().compareTo(b.getId());
    }

    private static int compareCodeWithScope(BsonJavaScriptWithScope a, BsonJavaScriptWithScope b, Collation collation) {
        int c = compareStrings(a.getCode(), b.getCode());
        return c != 0 ? c : compareDocuments(a.getScope(), b.getScope(), collation);
    }
}
