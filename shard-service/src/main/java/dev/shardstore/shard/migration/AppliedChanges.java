package dev.shardstore.shard.migration;

import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.shard.storage.StoredDocument;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * A batch of a donor's oplog entries ({@code {ts, op, o2: documentKey, o?: post-image}}, in time order) as a recipient
 * applies it: only each document's last state matters, so the batch becomes one set of upserts and one of deletes
 * (chunk migration's catch-up, resharding's oplog apply). An insert or update whose post-image is the recipient's is an
 * upsert of it; a delete, or an update whose document is not (any more) the recipient's, is a delete by {@code _id}.
 *
 * @param upserts the post-images to upsert, one per document
 * @param deletes the {@code _id} KeyStrings to delete, none of them among the upserts
 */
public record AppliedChanges(List<StoredDocument> upserts, List<byte[]> deletes) {
    public AppliedChanges {
        upserts = List.copyOf(upserts);
        deletes = List.copyOf(deletes);
    }

    /**
     * Folds {@code entries}.
     *
     * @param belongs whether a post-image is the recipient's
     */
    public static AppliedChanges of(List<BsonValue> entries, Predicate<BsonDocument> belongs) {
        Map<ByteBuffer, StoredDocument> upserts = new LinkedHashMap<>();
        Map<ByteBuffer, byte[]> deletes = new LinkedHashMap<>();
        for (BsonValue value : entries) {
            BsonDocument entry = value.asDocument();
            byte[] id = KeyString.encode(Objects.requireNonNull(entry.getDocument("o2").get("_id"), "an entry's o2 names its document's _id"));
            ByteBuffer slot = ByteBuffer.wrap(id);
            BsonDocument document = entry.isDocument("o") ? entry.getDocument("o") : null;
            if (document != null && belongs.test(document)) {
                deletes.remove(slot);
                upserts.put(slot, StoredDocument.of(document));
            } else {
                upserts.remove(slot);
                deletes.put(slot, id);
            }
        }
        return new AppliedChanges(List.copyOf(upserts.values()), List.copyOf(deletes.values()));
    }
}
