package dev.shardstore.router.cursor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * The results of several shard cursors as one stream, as mongos's {@code AsyncResultsMerger} builds them:
 * with a sort, a k-way merge of the shards' sorted streams (ties go to the shard listed first, so the merge
 * of streams is the stable sort of their concatenation); without one, the shards' results one shard after the
 * other in the order given. A single shard is the merge of one.
 *
 * <p>Each shard's results are buffered one batch at a time: the first batch from the reply that opened its
 * cursor, then a {@code getMore} only when its buffer is empty and the merge needs its next document (for a
 * sorted merge: when the shard's buffer is empty and the shard's cursor is open). {@code skip} and {@code limit}
 * apply to the merged stream; once the limit is reached, the remaining shard cursors are killed.
 */
public final class MergingStream implements DocumentStream {
    /**
     * One shard's part: what its first reply returned and its cursor for the rest.
     *
     * @param firstBatch the documents of the shard's first batch, in the shard's order
     * @param cursor     the rest (possibly {@link ShardCursor#exhausted() exhausted} already)
     */
    public record Source(List<BsonDocument> firstBatch, ShardCursor cursor) {
        public Source {
            firstBatch = List.copyOf(firstBatch);
            Objects.requireNonNull(cursor, "cursor");
        }
    }

    private final List<ArrayDeque<BsonDocument>> buffers = new ArrayList<>();
    private final List<ShardCursor> cursors = new ArrayList<>();
    private final @Nullable Comparator<BsonDocument> order;
    private long toSkip;
    private final long limit;
    private long returned;
    private int current; // unsorted: the shard being read

    /**
     * @param sources the shards' parts, in the order ties and concatenation follow
     * @param order   the sort the shards returned their results in, or null to concatenate
     * @param skip    documents of the merged stream to drop first (≥ 0)
     * @param limit   most documents to return after the skip; 0 for no limit
     */
    public MergingStream(List<Source> sources, @Nullable Comparator<BsonDocument> order, long skip, long limit) {
        if (skip < 0 || limit < 0) {
            throw new IllegalArgumentException("skip and limit must not be negative");
        }
        for (Source s : sources) {
            buffers.add(new ArrayDeque<>(s.firstBatch()));
            cursors.add(s.cursor());
        }
        this.order = order;
        this.toSkip = skip;
        this.limit = limit;
    }

    @Override
    public @Nullable BsonDocument next(int wanted) {
        if (limit > 0 && returned >= limit) {
            return null;
        }
        while (toSkip > 0) {
            if (take(0) == null) {
                return null;
            }
            toSkip--;
        }
        int pull = wanted <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, limit > 0 ? Math.min(wanted, limit - returned) : wanted);
        BsonDocument next = take(pull);
        if (next == null) {
            return null;
        }
        returned++;
        if (limit > 0 && returned >= limit) {
            close(); // mongos kills the shard cursors once the limit is met
        }
        return next;
    }

    /**
     * Whether the stream is known to be at its end without asking any shard: the limit is met, or every buffer is
     * empty and every shard cursor closed. An open shard cursor may still turn out empty (like mongos, the client
     * then gets a cursor id whose next batch is empty).
     */
    @Override
    public boolean exhausted() {
        if (limit > 0 && returned >= limit) {
            return true;
        }
        for (int i = 0; i < buffers.size(); i++) {
            if (!buffers.get(i).isEmpty() || !cursors.get(i).exhausted()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        cursors.forEach(ShardCursor::kill);
    }

    /** Removes and returns the next document of the merge (before skip/limit), or null when all shards are done. */
    private @Nullable BsonDocument take(int pull) {
        if (order == null) {
            while (current < buffers.size()) {
                if (ready(current, pull)) {
                    return buffers.get(current).poll();
                }
                current++;
            }
            return null;
        }
        int best = -1;
        for (int i = 0; i < buffers.size(); i++) {
            if (ready(i, pull) && (best < 0 || order.compare(buffers.get(i).peek(), buffers.get(best).peek()) < 0)) {
                best = i;
            }
        }
        return best < 0 ? null : buffers.get(best).poll();
    }

    /** Whether shard i has a buffered document, pulling batches (getMore) while its buffer is empty and it is open. */
    private boolean ready(int i, int pull) {
        ArrayDeque<BsonDocument> buffer = buffers.get(i);
        ShardCursor cursor = cursors.get(i);
        while (buffer.isEmpty() && !cursor.exhausted()) {
            try {
                buffer.addAll(cursor.getMore(pull));
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }
        return !buffer.isEmpty();
    }
}
