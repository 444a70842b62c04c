package dev.shardstore.shard.cursor;

import dev.shardstore.engine.spill.ExternalSorter;
import dev.shardstore.engine.spill.MemoryLimits;
import dev.shardstore.engine.spill.SpillStats;
import dev.shardstore.support.operation.OperationContext;
import java.util.Iterator;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * A cursor over a computed result that is read as it is handed out: the merge of a blocking sort's spilled runs, a
 * pipeline's output. It reads no database between batches; {@link #close()} (at its end, or when the cursor is killed,
 * reaped or fails) closes the stream, which deletes the spill files behind it. Each document is shaped when returned.
 */
public final class StreamCursor implements ShardCursor {
    private final Stream<BsonDocument> documents;
    private final Iterator<BsonDocument> next;
    private final UnaryOperator<BsonDocument> shape;
    private final ReadingOperation reading;
    private @Nullable BsonDocument pending;

    /**
     * @param documents the results in order; closed with the cursor
     * @param shape     applied to each document as it is returned, e.g. a projection
     * @param reading   the interruption of the stages behind {@code documents}: each batch's operation reads
     */
    StreamCursor(Stream<BsonDocument> documents, UnaryOperator<BsonDocument> shape, ReadingOperation reading) {
        this.documents = documents;
        this.next = documents.iterator();
        this.shape = shape;
        this.reading = reading;
    }

    /**
     * A cursor over {@code documents} that reads no database once it is returned. Until {@code readsDone} says that
     * reading the rest of {@code documents} touches no database (a blocking stage has consumed the scan, and no later
     * stage reads a collection), the documents are read now and held in arrival order: in memory up to {@code limits}'
     * sort budget, past it in spill files when disk use is allowed; without disk use in memory, as before there were
     * budgets (a result is not a blocking stage). The rest is handed out as the cursor is read, straight from the
     * blocking stage's memory or spill files, which are not copied a second time. The cursor closes {@code documents}.
     *
     * @param readsDone true once the rest of {@code documents} comes from no database
     * @param reading   the interruption {@code limits} carry, which each batch's operation then reads
     * @throws dev.shardstore.contracts.error.CommandException what reading {@code documents} throws
     */
    public static StreamCursor buffered(Stream<BsonDocument> documents, MemoryLimits limits, UnaryOperator<BsonDocument> shape,
            BooleanSupplier readsDone, ReadingOperation reading) {
        ExternalSorter held = new ExternalSorter("result", (a, b) -> 0, Long.MAX_VALUE, limits.allowDiskUse() ? limits.sortBytes() : Long.MAX_VALUE,
                limits.allowDiskUse() ? limits.spill() : null, new SpillStats(), limits.interruption(), limits.pool());
        try {
            Iterator<BsonDocument> read = documents.iterator();
            while (!readsDone.getAsBoolean()) {
                if (!read.hasNext()) {
                    documents.close();
                    return new StreamCursor(held.sorted(), shape, reading);
                }
                held.add(read.next());
            }
            Stream<BsonDocument> rest = StreamSupport.stream(Spliterators.spliteratorUnknownSize(read, Spliterator.ORDERED), false)
                    .onClose(documents::close);
            return new StreamCursor(Stream.concat(held.sorted(), rest), shape, reading);
        } catch (RuntimeException | Error e) { // an OutOfMemoryError too: the spill files go, whatever ends the read
            held.close();
            documents.close();
            throw e;
        }
    }

    @Override
    public Batch next(OperationContext opCtx, long maxDocuments) {
        reading.readBy(opCtx);
        BatchBuilder batch = new BatchBuilder(maxDocuments);
        try {
            while (!batch.isFull() && (pending != null || next.hasNext())) {
                BsonDocument out = pending != null ? pending : shape.apply(next.next());
                pending = null;
                int size = BatchBuilder.sizeOf(out);
                if (!batch.fits(size)) {
                    pending = out; // the next batch starts with it
                    break;
                }
                batch.add(out, size);
            }
        } catch (RuntimeException | Error e) { // an OutOfMemoryError too: the spill files go, whatever ends the read
            close();
            throw e;
        }
        boolean exhausted = pending == null && !next.hasNext();
        if (exhausted) {
            close();
        }
        return new Batch(batch.documents(), exhausted);
    }

    @Override
    public void close() {
        documents.close();
    }
}
