package dev.shardstore.router.cursor;

import java.util.Iterator;
import java.util.List;
import java.util.function.UnaryOperator;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * The documents behind a router cursor, pulled one at a time: a merge of shard cursors
 * ({@link MergingStream}) or results the router computed in memory ({@link #of(List)}). Not thread-safe: the
 * router cursor owning a stream serialises its use.
 */
public interface DocumentStream {
    /**
     * The next document, or null when there is none left.
     *
     * @param wanted how many more documents the caller means to take at most (0: unknown), the batch size to ask
     *               shards for when the stream must pull
     * @throws dev.shardstore.contracts.error.CommandException a shard's error while pulling
     */
    @Nullable BsonDocument next(int wanted);

    /** Whether {@link #next} is known to return null, without pulling from shards. */
    boolean exhausted();

    /** Releases what is still open (kills the remaining shard cursors); idempotent, never throws. */
    void close();

    /** This stream with {@code f} applied to each document (a projection the router applies after a merge). */
    default DocumentStream map(UnaryOperator<BsonDocument> f) {
        DocumentStream source = this;
        return new DocumentStream() {
            @Override
            public @Nullable BsonDocument next(int wanted) {
                BsonDocument next = source.next(wanted);
                return next == null ? null : f.apply(next);
            }

            @Override
            public boolean exhausted() {
                return source.exhausted();
            }

            @Override
            public void close() {
                source.close();
            }
        };
    }

    /** A stream over documents already in memory. */
    static DocumentStream of(List<BsonDocument> documents) {
        Iterator<BsonDocument> it = List.copyOf(documents).iterator();
        return new DocumentStream() {
            @Override
            public @Nullable BsonDocument next(int wanted) {
                return it.hasNext() ? it.next() : null;
            }

            @Override
            public boolean exhausted() {
                return !it.hasNext();
            }

            @Override
            public void close() {
                // nothing remote to release
            }
        };
    }
}
