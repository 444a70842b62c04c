package dev.shardstore.shard.storage;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.keystring.KeyString;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * One row of a collection table, as read or about to be written: the {@code _id} KeyString and the
 * document's BSON bytes. The arrays are owned by this value and never modified.
 *
 * @param id   KeyString of the document's {@code _id}
 * @param bson the document in binary BSON
 */
public record StoredDocument(byte[] id, byte[] bson) {
    /**
     * Encodes a document that has an {@code _id} for writing.
     *
     * @throws IllegalArgumentException if {@code doc} has no {@code _id}
     */
    public static StoredDocument of(BsonDocument doc) {
        BsonValue id = doc.get("_id");
        if (id == null) {
            throw new IllegalArgumentException("document has no _id");
        }
        return new StoredDocument(KeyString.encode(id), BsonBytes.encode(doc));
    }

    /** The document, fully decoded (a new mutable copy on every call). */
    public BsonDocument decode() {
        return BsonBytes.decode(bson);
    }

    /**
     * The document read in place over its bytes: fields are decoded as they are looked up, nothing is copied. Read-only;
     * for a look at a few fields of many documents (the owner of each, in a data-distribution scan).
     */
    public RawBsonDocument raw() {
        return new RawBsonDocument(bson);
    }

    /** The document's size in bytes. */
    public int size() {
        return bson.length;
    }
}
