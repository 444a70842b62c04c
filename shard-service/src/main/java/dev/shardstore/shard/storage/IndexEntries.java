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
        List<IndexSpec> becameMultikey = new ArrayList<>();
        if (indexes.isEmpty() || documents.isEmpty()) {
            return becameMultikey;
        }
        List<BsonDocument> decoded = documents.stream().map(StoredDocument::decode).toList();
        for (IndexSpec index : indexes) {
            IndexKeys generator = new IndexKeys(index);
            List<byte[]> keys = new ArrayList<>();
            List<byte[]> ids = new ArrayList<>();
            List<IndexKeys.Key> sources = new ArrayList<>();
            boolean multikey = false;
            for (int i = 0; i < documents.size(); i++) {
                IndexKeys.Keys k = generator.of(decoded.get(i));
                multikey |= k.multikey();
                for (IndexKeys.Key key : k.keys()) {
                    keys.add(key.bytes());
                    ids.add(documents.get(i).id());
                    sources.add(key);
                }
            }
            if (multikey && !index.multikey()) {
                becameMultikey.add(index);
            }
            insert(ns, index, keys, ids, sources);
        }
        return becameMultikey;
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
