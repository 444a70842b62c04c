package dev.shardstore.shard.storage;

import java.util.Objects;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * One oplog entry as {@link OplogReader} returns it (the fields of MongoDB's oplog entries; see {@link Oplog}).
 * The byte arrays are owned by this value and never modified.
 *
 * @param ts               the entry's cluster time
 * @param op               what changed
 * @param ns               {@code db.coll}, or {@code db.$cmd} for a command
 * @param ui               the collection's UUID on this shard; null for {@code dropDatabase} and for entries
 *                         written before the column existed
 * @param o2               the documentKey ({@code {<shard key fields>, _id}}) of an insert, update or delete
 * @param shardKey         the KeyString of the document's shard key; null for an unsharded collection, a command,
 *                         or a write whose collection's filtering metadata was unknown ({@link DocumentKeys})
 * @param previousShardKey for an update that changed the shard key, the KeyString of the key before it
 * @param fromMigrate      written by chunk migration or range deletion
 * @param o                the inserted document, the post-image of an update, or the command; null for a delete
 */
public record OplogEntry(BsonTimestamp ts, Op op, String ns, @Nullable UUID ui, @Nullable BsonDocument o2,
        byte @Nullable [] shardKey, byte @Nullable [] previousShardKey, boolean fromMigrate, @Nullable BsonDocument o) {
    public OplogEntry {
        Objects.requireNonNull(ts, "ts");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(ns, "ns");
    }

    /** The kinds of entries, with their one-letter {@code op} codes. */
    public enum Op {
        INSERT('i'), UPDATE('u'), DELETE('d'), COMMAND('c');

        private final char code;

        Op(char code) {
            this.code = code;
        }

        /** The {@code op} letter as stored. */
        public char code() {
            return code;
        }

        /**
         * The op stored as {@code code}.
         *
         * @throws IllegalArgumentException for a letter the oplog does not use
         */
        public static Op of(char code) {
            for (Op op : values()) {
                if (op.code == code) {
                    return op;
                }
            }
            throw new IllegalArgumentException("not an oplog op: " + code);
        }
    }
}
