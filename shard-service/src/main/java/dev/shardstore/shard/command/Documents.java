package dev.shardstore.shard.command;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.storage.StoredDocument;
import org.bson.BsonDocument;

/** Encoding of documents about to be written, under MongoDB's 16 MiB document limit. */
final class Documents {
    private Documents() {}

    /**
     * Encodes {@code doc} (which has an {@code _id}) for storage.
     *
     * @param what names the document in the error, e.g. "object to insert too large"
     * @throws CommandException BSONObjectTooLarge (10334) when it exceeds {@link BsonBytes#MAX_DOCUMENT_SIZE}
     */
    static StoredDocument encodeWithinLimit(BsonDocument doc, String what) {
        StoredDocument stored = StoredDocument.of(doc);
        if (stored.size() > BsonBytes.MAX_DOCUMENT_SIZE) {
            throw new CommandException(ErrorCode.BSONObjectTooLarge,
                    what + ". size in bytes: " + stored.size() + ", max size: " + BsonBytes.MAX_DOCUMENT_SIZE);
        }
        return stored;
    }
}
