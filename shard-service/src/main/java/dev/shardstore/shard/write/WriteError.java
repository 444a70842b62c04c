package dev.shardstore.shard.write;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.namespace.Namespace;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * One entry of a write command's {@code writeErrors}: the statement (or document) index and why it
 * was not applied, shaped {@code {index, code, ...extra, errmsg}} as MongoDB's write errors are (a
 * duplicate key adds {@code keyPattern} and {@code keyValue}).
 *
 * @param index position of the failed statement or document in the command's array
 * @param error the failure
 */
record WriteError(int index, CommandException error) {
    BsonDocument toBson() {
        BsonDocument doc = new BsonDocument("index", new BsonInt32(index)).append("code", new BsonInt32(error.code().code()));
        doc.putAll(error.extraInfo());
        return doc.append("errmsg", new BsonString(error.getMessage()));
    }

    /**
     * MongoDB's duplicate key error for the {@code _id_} index:
     * {@code E11000 duplicate key error collection: db.coll index: _id_ dup key: { _id: 1 }}.
     */
    static CommandException duplicateId(Namespace ns, BsonValue id) {
        BsonDocument key = new BsonDocument("_id", id);
        String rendered = id.isObjectId() ? "ObjectId('" + id.asObjectId().getValue().toHexString() + "')" : valueJson(key);
        return new CommandException(ErrorCode.DuplicateKey,
                "E11000 duplicate key error collection: " + ns.full() + " index: _id_ dup key: { _id: " + rendered + " }",
                new BsonDocument("keyPattern", new BsonDocument("_id", new BsonInt32(1))).append("keyValue", key));
    }

    /** The relaxed Extended JSON of the single value in {@code {_id: value}}. */
    private static String valueJson(BsonDocument key) {
        String json = ExtendedJson.toJson(key);
        return json.substring(json.indexOf(':') + 1, json.lastIndexOf('}')).trim();
    }
}
