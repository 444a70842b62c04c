package dev.shardstore.shard.cursor;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.bson.BsonDocument;

/**
 * A blocking sort (MongoDB's SORT stage) with a memory cap. When the query has a limit, only the best
 * {@code skip + limit} documents are retained (a top-k sort), so the cap applies to what is kept,
 * not to what was scanned. Documents that compare equal keep their arrival order ({@code _id} order
 * for a scan).
 */
final class SortBuffer {
    private final Comparator<Entry> order;
    private final PriorityQueue<Entry> worstFirst;
    private final long keep;
    private final long memoryLimit;
    private long bytes;
    private long arrivals;

    /**
     * @param keep        how many of the best documents to keep ({@code Long.MAX_VALUE} for all)
     * @param memoryLimit most document bytes held at once
     */
    SortBuffer(Comparator<BsonDocument> sort, long keep, long memoryLimit) {
        this.order = Comparator.<Entry, BsonDocument>comparing(Entry::document, sort).thenComparingLong(Entry::arrival);
        this.worstFirst = new PriorityQueue<>(this.order.reversed());
        this.keep = keep;
        this.memoryLimit = memoryLimit;
    }

    /**
     * Adds one document of {@code size} bytes.
     *
     * @throws CommandException QueryExceededMemoryLimitNoDiskUseAllowed (292) when the retained
     *                          documents exceed the memory limit
     */
    void add(BsonDocument document, int size) {
        worstFirst.add(new Entry(document, size, arrivals++));
        bytes += size;
        if (worstFirst.size() > keep) {
            bytes -= worstFirst.poll().size();
        }
        if (bytes > memoryLimit) {
            throw new CommandException(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed, "Sort exceeded memory limit of "
                    + memoryLimit + " bytes, but did not opt in to external sorting (this shard does not spill sorts to disk)");
        }
    }

    /** The retained documents in sort order; the buffer is empty afterwards. */
    List<BsonDocument> drainSorted() {
        List<Entry> entries = new ArrayList<>(worstFirst);
        worstFirst.clear();
        bytes = 0;
        entries.sort(order);
        List<BsonDocument> sorted = new ArrayList<>(entries.size());
        entries.forEach(entry -> sorted.add(entry.document()));
        return sorted;
    }

    private record Entry(BsonDocument document, int size, long arrival) {}
}
