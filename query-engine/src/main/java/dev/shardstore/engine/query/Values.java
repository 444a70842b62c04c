package dev.shardstore.engine.query;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** Small helpers over BSON values shared by the query, update and projection code. */
final class Values {
    private Values() {}

    /**
     * Whether two values are the same BSON bytes: same types, same field order, same field names; doubles
     * by bit pattern (so {@code 0.0} and {@code -0.0} differ, and {@code 1} differs from {@code 1.0}).
     * This is MongoDB's {@code binaryEqual}, the test for "the update changed nothing" and for the
     * immutability of {@code _id}.
     */
    static boolean identical(BsonValue a, BsonValue b) {
        if (a.getBsonType() != b.getBsonType()) {
            return false;
        }
        return switch (a.getBsonType()) {
            case DOCUMENT -> identicalDocuments(a.asDocument(), b.asDocument());
            case ARRAY -> identicalArrays(a.asArray(), b.asArray());
            case DOUBLE -> Double.doubleToRawLongBits(a.asDouble().getValue())
                    == Double.doubleToRawLongBits(b.asDouble().getValue());
            default -> a.equals(b);
        };
    }

    private static boolean identicalDocuments(BsonDocument a, BsonDocument b) {
        if (a.size() != b.size()) {
            return false;
        }
        Iterator<Map.Entry<String, BsonValue>> ia = a.entrySet().iterator();
        Iterator<Map.Entry<String, BsonValue>> ib = b.entrySet().iterator();
        while (ia.hasNext()) {
            Map.Entry<String, BsonValue> ea = ia.next();
            Map.Entry<String, BsonValue> eb = ib.next();
            if (!ea.getKey().equals(eb.getKey()) || !identical(ea.getValue(), eb.getValue())) {
                return false;
            }
        }
        return true;
    }

    private static boolean identicalArrays(BsonArray a, BsonArray b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!identical(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * A mutable deep copy that shares no document or array with {@code value} (also for read-only inputs
     * such as {@code RawBsonDocument}, whose {@code clone()} stays read-only).
     */
    static BsonValue copy(BsonValue value) {
        return switch (value.getBsonType()) {
            case DOCUMENT -> copy(value.asDocument());
            case ARRAY -> {
                BsonArray array = new BsonArray(new ArrayList<>(value.asArray().size()));
                value.asArray().forEach(element -> array.add(copy(element)));
                yield array;
            }
            default -> value;
        };
    }

    /** {@link #copy(BsonValue)} for a document. */
    static BsonDocument copy(BsonDocument document) {
        BsonDocument copy = new BsonDocument();
        document.forEach((name, value) -> copy.put(name, copy(value)));
        return copy;
    }

    /**
     * The array as BSON stores it: a document with each element under its position as field name
     * ({@code [x, y]} is {@code {"0": x, "1": y}}). MongoDB's matcher sees an array element this way where it
     * expects a document (the document form of {@code $elemMatch}). The elements are shared, not copied.
     */
    static BsonDocument byPosition(BsonArray array) {
        BsonDocument document = new BsonDocument();
        for (int i = 0; i < array.size(); i++) {
            document.put(Integer.toString(i), array.get(i));
        }
        return document;
    }

    /** {@code {name: value}} in relaxed Extended JSON, for error messages. */
    static String element(String name, BsonValue value) {
        return new BsonDocument(name, value).toJson();
    }
}
