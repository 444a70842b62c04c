package dev.shardstore.router.cursor;

import java.util.Objects;

/**
 * A router cursor: the client-visible id and the shard cursor behind it.
 *
 * @param id         the id the client sees (never 0)
 * @param db         database of the cursor's namespace
 * @param collection collection of the cursor's namespace
 * @param shardId    the shard holding the remote cursor
 * @param remoteId   the shard's cursor id
 * @param lastUsedNanos {@link System#nanoTime()} of the last use, for the idle timeout
 */
public record RouterCursor(long id, String db, String collection, String shardId, long remoteId, long lastUsedNanos) {
    public RouterCursor {
        Objects.requireNonNull(db, "db");
        Objects.requireNonNull(collection, "collection");
        Objects.requireNonNull(shardId, "shardId");
        if (id == 0 || remoteId == 0) {
            throw new IllegalArgumentException("cursor ids are never 0");
        }
    }

    public String ns() {
        return db + "." + collection;
    }

    RouterCursor touched() {
        return new RouterCursor(id, db, collection, shardId, remoteId, System.nanoTime());
    }
}
