package dev.shardstore.shard.storage;

import dev.shardstore.contracts.keystring.Ordering;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;

/**
 * One secondary index of a collection, as listIndexes shows it, with the table holding its entries.
 *
 * @param name     the index name
 * @param key      the key pattern ({@code {a: 1, b: -1}}, {@code {a: "hashed", b: 1}})
 * @param unique   whether keys are unique
 * @param sparse   whether documents missing every key field are left out
 * @param partial  the partialFilterExpression, or null
 * @param table    {@code i_} followed by 32 hex digits (checked, so safe to place in SQL)
 * @param multikey whether some document produced more than one key (an array value)
 */
public record IndexSpec(String name, BsonDocument key, boolean unique, boolean sparse, @Nullable BsonDocument partial,
        String table, boolean multikey) {
    private static final Pattern TABLE_NAME = Pattern.compile("i_[0-9a-f]{32}");

    public IndexSpec {
        if (table == null || !TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("not an index table name: " + table);
        }
    }

    /** The key fields, in key-pattern order. */
    public List<String> fields() {
        return new ArrayList<>(key.keySet());
    }

    /** The direction of each key field. */
    public Ordering ordering() {
        return Ordering.fromKeyPattern(key);
    }

    /** The options part of the spec as stored ({@code {key, name, unique?, sparse?, partialFilterExpression?}}). */
    public BsonDocument specDocument() {
        BsonDocument doc = new BsonDocument("key", key).append("name", new BsonString(name));
        if (unique) {
            doc.append("unique", BsonBoolean.TRUE);
        }
        if (sparse) {
            doc.append("sparse", BsonBoolean.TRUE);
        }
        if (partial != null) {
            doc.append("partialFilterExpression", partial);
        }
        return doc;
    }

    /** The listIndexes entry: {@code {v: 2, key, name, unique?, sparse?, partialFilterExpression?}}. */
    public BsonDocument listEntry() {
        BsonDocument doc = new BsonDocument("v", new BsonInt32(2));
        doc.putAll(specDocument());
        return doc;
    }

    /** The hashed key field ({@code {a: "hashed"}}), or null for an ascending/descending index. */
    public @Nullable String hashedField() {
        for (var e : key.entrySet()) {
            if (e.getValue().isString()) {
                return e.getKey();
            }
        }
        return null;
    }

    /**
     * A key pattern as indexes store it, for matching a pattern given by a user (hint, dropIndexes): numbers
     * become 1 or -1, {@code "hashed"} stays.
     */
    public static BsonDocument normalizeKey(BsonDocument pattern) {
        BsonDocument out = new BsonDocument();
        pattern.forEach((f, v) -> out.append(f, v.isString() ? v
                : new BsonInt32(v.isNumber() && v.asNumber().doubleValue() < 0 ? -1 : 1)));
        return out;
    }

    /** The same index with the multikey flag set. */
    public IndexSpec asMultikey() {
        return new IndexSpec(name, key, unique, sparse, partial, table, true);
    }
}
