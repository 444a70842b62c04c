package dev.shardstore.cluster.ycsb;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import site.ycsb.ByteIterator;
import site.ycsb.StringByteIterator;

/**
 * YCSB records as documents, one shape for every binding: {@code {_id: key, field0: "…", …}} (YCSB's
 * fields are printable strings, so each becomes a BSON string).
 */
final class YcsbRecords {
    private YcsbRecords() {
    }

    /** The document of record {@code key} with {@code values}. */
    static BsonDocument document(String key, Map<String, ByteIterator> values) {
        BsonDocument doc = new BsonDocument("_id", new BsonString(key));
        fields(values, doc);
        return doc;
    }

    /** {@code values} as string fields appended to {@code into}; returns {@code into}. */
    static BsonDocument fields(Map<String, ByteIterator> values, BsonDocument into) {
        values.forEach((field, value) -> into.put(field, new BsonString(value.toString())));
        return into;
    }

    /** Copies the string fields of {@code doc} named in {@code fields} (all but {@code _id} when null) into {@code result}. */
    static void read(BsonDocument doc, Set<String> fields, Map<String, ByteIterator> result) {
        for (Map.Entry<String, BsonValue> e : doc.entrySet()) {
            if (!e.getKey().equals("_id") && (fields == null || fields.contains(e.getKey())) && e.getValue().isString()) {
                result.put(e.getKey(), new StringByteIterator(e.getValue().asString().getValue()));
            }
        }
    }

    /** A fresh result map for one record of a scan. */
    static HashMap<String, ByteIterator> row(BsonDocument doc, Set<String> fields) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        read(doc, fields, row);
        return row;
    }
}
