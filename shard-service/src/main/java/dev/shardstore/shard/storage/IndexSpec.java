package dev.shardstore.shard.storage;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.keystring.Ordering;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 * @param collation the collation its keys compare strings under ({@link IndexKeys} stores strings as its collation
 *                  keys); {@link Collation#SIMPLE} for binary order
 */
public record IndexSpec(String name, BsonDocument key, boolean unique, boolean sparse, @Nullable BsonDocument partial,
        String table, boolean multikey, Collation collation) {
    /** The name of the {@code _id} index; stored here only when it has a non-simple collation ({@link IndexCatalog}). */
    public static final String ID_INDEX_NAME = "_id_";
    private static final Pattern TABLE_NAME = Pattern.compile("i_[0-9a-f]{32}");

    public IndexSpec {
        if (table == null || !TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("not an index table name: " + table);
        }
        Objects.requireNonNull(collation, "collation");
    }

    /**
     * Whether this is the {@code _id} index with a collection's non-simple default collation: a unique table of
     * collated {@code _id} keys kept next to the collection table's binary primary key, so that {@code _id}s equal under
     * the collation conflict as in MongoDB.
     */
    public boolean isIdIndex() {
        return name.equals(ID_INDEX_NAME);
    }

    /** The key fields, in key-pattern order. */
    public List<String> fields() {
        return new ArrayList<>(key.keySet());
    }

    /** The direction of each key field. */
    public Ordering ordering() {
        return Ordering.fromKeyPattern(key);
    }

    /**
     * The options part of the spec as stored ({@code {key, name, unique?, sparse?, partialFilterExpression?,
     * collation?}}, the collation's full spec when it is not simple, as MongoDB lists it).
     */
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
        if (!collation.isSimple()) {
            doc.append("collation", collation.toDocument());
        }
        return doc;
    }

    /**
     * The listIndexes entry: {@code {v: 2, key, name, unique?, sparse?, partialFilterExpression?, collation?}}; the
     * {@code _id} index is listed without {@code unique}, as MongoDB lists it.
     */
    public BsonDocument listEntry() {
        BsonDocument doc = new BsonDocument("v", new BsonInt32(2));
        doc.putAll(specDocument());
        if (isIdIndex()) {
            doc.remove("unique");
        }
        return doc;
    }

    /**
     * Whether writing a document's entries can fail, so that the document statement before it must be undone: a unique
     * key can be taken (DuplicateKey), a compound key can meet parallel arrays (CannotIndexParallelArrays), a hashed
     * field can meet an array (BadValue) unless it is {@code _id}, which is never an array (IdField). See
     * {@link IndexKeys}.
     */
    public boolean mayRefuseDocuments() {
        String hashed = hashedField();
        return unique || key.size() > 1 || (hashed != null && !hashed.equals("_id"));
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
        return new IndexSpec(name, key, unique, sparse, partial, table, true, collation);
    }
}
