package dev.shardstore.router.cursor;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
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

    /**
     * This stream as a Java stream, pulling as it is consumed (one document at a time, so a merge pulls shard batches
     * only when it needs them); closing the Java stream closes this one.
     */
    default Stream<BsonDocument> toStream() {
        DocumentStream source = this;
        Iterator<BsonDocument> documents = new Iterator<>() {
            private @Nullable BsonDocument next;

            @Override
            public boolean hasNext() {
                if (next == null) {
                    next = source.next(0);
                }
                return next != null;
            }

            @Override
            public BsonDocument next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                BsonDocument out = Objects.requireNonNull(next);
                next = null;
                return out;
            }
        };
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(documents, Spliterator.ORDERED), false).onClose(source::close);
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
