package dev.shardstore.contracts.bson;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import java.util.List;

/** Builders for MongoDB's success reply shapes. */
public final class Replies {
    private Replies() {}

    /** {@code {...fields, ok: 1}}; the input is not modified. */
    public static BsonDocument ok(BsonDocument fields) {
        BsonDocument reply = fields.clone();
        reply.put("ok", new BsonDouble(1));
        return reply;
    }

    /** {@code {ok: 1}}. */
    public static BsonDocument ok() {
        return ok(new BsonDocument());
    }

    /**
     * A cursor reply: {@code {cursor: {firstBatch|nextBatch: [...], id, ns}, ok: 1}}.
     *
     * @param first    true for a first batch (find, aggregate, listCollections), false for getMore
     * @param cursorId 0 when the cursor is exhausted
     * @param ns       the namespace, {@code db.collection}
     */
    public static BsonDocument cursor(boolean first, List<? extends BsonValue> batch, long cursorId, String ns) {
        BsonDocument cursor = new BsonDocument(first ? "firstBatch" : "nextBatch", new BsonArray(List.copyOf(batch)))
                .append("id", new BsonInt64(cursorId))
                .append("ns", new BsonString(ns));
        return ok(new BsonDocument("cursor", cursor));
    }
}
