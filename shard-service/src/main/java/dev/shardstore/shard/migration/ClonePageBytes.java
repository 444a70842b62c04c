package dev.shardstore.shard.migration;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.storage.StoredDocument;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code documents} of a {@code _migrateClone} reply: one BinData holding the page's stored rows as they are in the
 * donor's collection table, each framed as {@code int32 idLength, id, document} (little-endian like BSON; the document is
 * its own length-prefixed BSON). The donor copies bytes it read and the recipient slices them back into rows it writes,
 * so neither side decodes or re-encodes a document, nor re-derives its {@code _id} KeyString (both shards run the same
 * KeyString version: the cluster's shards are one build).
 */
final class ClonePageBytes {
    private ClonePageBytes() {}

    /** The frames of {@code documents}, in order. */
    static byte[] encode(List<StoredDocument> documents) {
        int size = 0;
        for (StoredDocument document : documents) {
            size += Integer.BYTES + document.id().length + document.size();
        }
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        for (StoredDocument document : documents) {
            out.putInt(document.id().length).put(document.id()).put(document.bson());
        }
        return out.array();
    }

    /**
     * The rows of {@code frames}, in order.
     *
     * @param count how many rows the reply says the frames hold
     * @throws CommandException HostUnreachable (6) when the bytes are not {@code count} whole frames: the reply is
     *                          unreadable, as a malformed reply of any command is
     */
    static List<StoredDocument> decode(byte[] frames, int count) {
        ByteBuffer in = ByteBuffer.wrap(frames).order(ByteOrder.LITTLE_ENDIAN);
        List<StoredDocument> documents = new ArrayList<>();
        try {
            while (in.hasRemaining()) {
                byte[] id = new byte[in.getInt()];
                in.get(id);
                byte[] bson = new byte[in.getInt(in.position())];
                in.get(bson);
                documents.add(new StoredDocument(id, bson));
            }
        } catch (BufferUnderflowException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new CommandException(ErrorCode.HostUnreachable, "a _migrateClone page of " + frames.length
                    + " bytes ends inside a document (" + documents.size() + " whole ones)", e);
        }
        if (documents.size() != count) {
            throw new CommandException(ErrorCode.HostUnreachable, "a _migrateClone page says it holds " + count + " documents but its "
                    + frames.length + " bytes frame " + documents.size());
        }
        return documents;
    }
}
