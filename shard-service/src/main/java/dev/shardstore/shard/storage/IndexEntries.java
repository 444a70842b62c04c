package dev.shardstore.shard.storage;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Writes the entries of secondary index tables {@code (key bytea, id bytea)}. Callers run these in
 * the transaction of the document write, so a document, its oplog entry and its index entries commit
 * or roll back together. A key already taken in a unique index is a DuplicateKey (11000) error naming
 * the index and key, thrown before anything else is written; the caller's transaction rolls back.
 */
@Repository
public class IndexEntries {
    private final JdbcClient jdbc;

    public IndexEntries(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Adds the entries of {@code documents} to every index.
     *
     * @return the indexes that became multikey with these documents
     */
    public List<IndexSpec> add(Namespace ns, List<IndexSpec> indexes, List<StoredDocument> documents) {
        return write(ns, indexes, null, documents);
    }

    /**
     * Moves the entries of replaced documents: per index, removes the keys only a pre-image had and adds the keys only
     * its post-image has, so an update that leaves an index's fields alone writes none of that index's rows (an update
     * of a hashed-{@code _id} collection's other fields touches no index table; issue 10's workload A).
     *
     * @param before the stored pre-images, in the order of {@code after}, with the same {@code _id}s
     * @return the indexes that became multikey with the post-images
     */
    public List<IndexSpec> replace(Namespace ns, List<IndexSpec> indexes, List<StoredDocument> before, List<StoredDocument> after) {
        if (before.size() != after.size()) {
            throw new IllegalArgumentException("one pre-image per post-image: " + before.size() + " and " + after.size());
        }
        return write(ns, indexes, before, after);
    }

    private List<IndexSpec> write(Namespace ns, List<IndexSpec> indexes, @Nullable List<StoredDocument> before, List<StoredDocument> after) {
        List<IndexSpec> becameMultikey = new ArrayList<>();
        if (indexes.isEmpty() || after.isEmpty()) {
            return becameMultikey;
        }
        // read in place: an index reads a few fields, and decoding whole documents was most of a clone page's CPU here
        List<BsonDocument> postImages = after.stream().<BsonDocument>map(StoredDocument::raw).toList();
        List<BsonDocument> preImages = before == null ? null : before.stream().<BsonDocument>map(StoredDocument::raw).toList();
        for (IndexSpec index : indexes) {
            IndexKeys generator = new IndexKeys(index);
            List<byte[]> keys = new ArrayList<>();
            List<byte[]> ids = new ArrayList<>();
            List<IndexKeys.Key> sources = new ArrayList<>();
            List<byte[]> removedKeys = new ArrayList<>();
            List<byte[]> removedIds = new ArrayList<>();
            boolean multikey = false;
            for (int i = 0; i < after.size(); i++) {
                byte[] id = after.get(i).id();
                IndexKeys.Keys now = generator.of(postImages.get(i));
                IndexKeys.Keys previous = preImages == null ? new IndexKeys.Keys(List.of(), false) : generator.of(preImages.get(i));
                multikey |= now.multikey();
                Set<ByteBuffer> had = bytes(previous);
                for (IndexKeys.Key key : now.keys()) {
                    if (!had.contains(ByteBuffer.wrap(key.bytes()))) {
                        keys.add(key.bytes());
                        ids.add(id);
                        sources.add(key);
                    }
                }
                Set<ByteBuffer> current = bytes(now);
                for (IndexKeys.Key key : previous.keys()) {
                    if (!current.contains(ByteBuffer.wrap(key.bytes()))) {
                        removedKeys.add(key.bytes());
                        removedIds.add(id);
                    }
                }
            }
            if (multikey && !index.multikey()) {
                becameMultikey.add(index);
            }
            delete(index, removedKeys, removedIds);
            insert(ns, index, keys, ids, sources);
        }
        return becameMultikey;
    }

    private static Set<ByteBuffer> bytes(IndexKeys.Keys keys) {
        Set<ByteBuffer> set = new HashSet<>();
        keys.keys().forEach(k -> set.add(ByteBuffer.wrap(k.bytes())));
        return set;
    }

    private void delete(IndexSpec index, List<byte[]> keys, List<byte[]> ids) {
        if (!keys.isEmpty()) {
            jdbc.sql("DELETE FROM " + index.table() + " WHERE (key, id) IN (SELECT k, i FROM unnest(?::bytea[], ?::bytea[]) AS s(k, i))")
                    .param(keys.toArray(byte[][]::new)).param(ids.toArray(byte[][]::new)).update();
        }
    }

    private void insert(Namespace ns, IndexSpec index, List<byte[]> keys, List<byte[]> ids, List<IndexKeys.Key> sources) {
        if (keys.isEmpty()) {
            return;
        }
        String sql = "INSERT INTO " + index.table() + " (key, id) SELECT k, i FROM unnest(?::bytea[], ?::bytea[]) AS s(k, i)"
                + " ON CONFLICT DO NOTHING" + (index.unique() ? " RETURNING key, id" : "");
        var statement = jdbc.sql(sql).param(keys.toArray(byte[][]::new)).param(ids.toArray(byte[][]::new));
        if (!index.unique()) {
            statement.update();
            return;
        }
        Set<ByteBuffer> written = new HashSet<>();
        statement.query((rs, n) -> written.add(pair(rs.getBytes(1), rs.getBytes(2)))).list();
        if (written.size() == keys.size()) {
            return;
        }
        for (int i = 0; i < keys.size(); i++) {
            if (!written.contains(pair(keys.get(i), ids.get(i)))) {
                throw duplicateKey(ns, index, sources.get(i).values());
            }
        }
    }

    private static ByteBuffer pair(byte[] key, byte[] id) {
        return ByteBuffer.allocate(8 + key.length + id.length).putInt(key.length).put(key).putInt(id.length).put(id).flip();
    }

    /** Removes every entry of the documents with these {@code _id} KeyStrings from every index. */
    public void remove(List<IndexSpec> indexes, List<byte[]> ids) {
        if (ids.isEmpty()) {
            return;
        }
        byte[][] array = ids.toArray(byte[][]::new);
        for (IndexSpec index : indexes) {
            jdbc.sql("DELETE FROM " + index.table() + " WHERE id = ANY(?::bytea[])").param(array).update();
        }
    }

    /**
     * MongoDB's duplicate key error: {@code E11000 duplicate key error collection: db.coll index: a_1
     * dup key: { a: 1 }}, with {@code keyPattern} and {@code keyValue}.
     */
    public static CommandException duplicateKey(Namespace ns, IndexSpec index, List<BsonValue> values) {
        BsonDocument keyValue = new BsonDocument();
        List<String> rendered = new ArrayList<>();
        List<String> fields = index.fields();
        for (int i = 0; i < fields.size(); i++) {
            BsonValue v = values.get(i);
            keyValue.append(fields.get(i), v);
            rendered.add(fields.get(i) + ": " + render(v));
        }
        return new CommandException(ErrorCode.DuplicateKey, "E11000 duplicate key error collection: " + ns.full()
                + " index: " + index.name() + " dup key: { " + String.join(", ", rendered) + " }",
                new BsonDocument("keyPattern", index.key()).append("keyValue", keyValue));
    }

    private static String render(BsonValue v) {
        if (v.isObjectId()) {
            return "ObjectId('" + v.asObjectId().getValue().toHexString() + "')";
        }
        String json = ExtendedJson.toJson(new BsonDocument("v", v));
        return json.substring(json.indexOf(':') + 1, json.lastIndexOf('}')).trim();
    }
}
