package dev.shardstore.shard.write;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.BsonLimits;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.storage.StoredDocument;
import org.bson.BsonDocument;

/** Encoding of documents about to be written, under MongoDB's 16 MiB size and 100-level nesting limits. */
public final class Documents {
    private Documents() {}

    /**
     * Encodes {@code doc} (which has an {@code _id}) for storage. The depth is checked first, iteratively, so the
     * recursive encoder never sees a document deeper than the limit (an update's dotted path can build one from a
     * shallow command).
     *
     * @param what names the document in the error, e.g. "object to insert too large"
     * @throws CommandException Overflow (15) when it nests deeper than {@link BsonLimits#MAX_STORAGE_DEPTH}
     *     levels, naming where; BSONObjectTooLarge (10334) when it exceeds {@link BsonBytes#MAX_DOCUMENT_SIZE}
     */
    static StoredDocument encodeWithinLimit(BsonDocument doc, String what) {
        BsonLimits.checkDepth(doc, BsonLimits.MAX_STORAGE_DEPTH, "document");
        StoredDocument stored = StoredDocument.of(doc);
        if (stored.size() > BsonBytes.MAX_DOCUMENT_SIZE) {
            throw new CommandException(ErrorCode.BSONObjectTooLarge,
                    what + ". size in bytes: " + stored.size() + ", max size: " + BsonBytes.MAX_DOCUMENT_SIZE);
        }
        return stored;
    }
}
