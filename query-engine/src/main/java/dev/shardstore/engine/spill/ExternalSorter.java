package dev.shardstore.engine.spill;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.jspecify.annotations.Nullable;

/**
 * A stable blocking sort with a memory budget (MongoDB's sorter): documents are held in memory up to {@code memoryLimit}
 * bytes of BSON; past it, with disk use allowed, the held documents are sorted and written as one run (their BSON bytes,
 * one after the other) to a file of the {@link SpillDirectory}, and {@link #sorted()} merges the runs and what is
 * still held, k-way through a priority queue, reading each run sequentially. Without disk use, going over the budget is
 * QueryExceededMemoryLimitNoDiskUseAllowed (292) with MongoDB's message. With {@code keep} (a limit), only the best
 * {@code keep} documents are held (a top-k sort), so the budget counts what is kept, not what was seen.
 *
 * <p>Documents that compare equal come out in the order they were added: each run holds later arrivals than the runs
 * before it, and the merge breaks ties by run. Closing the sorter (or the stream {@link #sorted()} returned) deletes its
 * files, on every exit path of its caller. Every {@value #CHECK_INTERVAL} documents added or merged it checks its
 * {@link Interruption}, and once more before it merges runs ({@link Interruption#beforeMerge}); an interrupted sorter
 * closes itself, so a killed operation leaves no spill file. Used by one thread at a time.
 */
public final class ExternalSorter implements AutoCloseable {
    /** Documents added or merged between two checks for interrupt (a check may read the clock). */
    public static final int CHECK_INTERVAL = 128;
    /**
     * The least a sorter holds before a full {@link MemoryPool} makes it spill, so that sorters under a pool that others
     * filled write runs of some size rather than one file per document.
     */
    static final long MIN_POOLED_RUN_BYTES = 1024 * 1024;
    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private final String stage;
    private final Comparator<Entry> order;
    private final long keep;
    private final long memoryLimit;
    private final @Nullable SpillDirectory spill;
    private final SpillStats stats;
    private final Interruption interruption;
    private final MemoryPool pool;
    private final PriorityQueue<Entry> worstFirst;
    private final List<Entry> held = new ArrayList<>();
    private final List<Path> runs = new ArrayList<>();
    private final List<RunReader> readers = new ArrayList<>();
    private long bytes;
    /** What of {@link #bytes} this sorter counts in the pool (all of it, until a run or the close gives it back). */
    private long pooled;
    private long arrivals;

    /**
     * @param stage       the stage named in errors and spill file names ({@code "$sort"}, {@code "$group"})
     * @param sort        the order
     * @param keep        how many of the best documents to keep ({@code Long.MAX_VALUE} for all)
     * @param memoryLimit most bytes of documents held at once ({@code Long.MAX_VALUE}: no budget, sizes are not measured)
     * @param spill       where runs go; null when disk use is not allowed
     * @param stats        counts the runs written
     * @param interruption checked as documents are added and merged
     */
    public ExternalSorter(String stage, Comparator<BsonDocument> sort, long keep, long memoryLimit, @Nullable SpillDirectory spill,
            SpillStats stats, Interruption interruption) {
        this(stage, sort, keep, memoryLimit, spill, stats, interruption, MemoryPool.UNBOUNDED);
    }

    /**
     * A sorter that also counts what it holds in {@code pool}: with disk use allowed, it spills once the pool is over
     * its capacity and it holds at least {@value #MIN_POOLED_RUN_BYTES} bytes (or its whole budget, if smaller), even
     * under its own budget.
     */
    public ExternalSorter(String stage, Comparator<BsonDocument> sort, long keep, long memoryLimit, @Nullable SpillDirectory spill,
            SpillStats stats, Interruption interruption, MemoryPool pool) {
        this.pool = pool;
        if (keep <= 0 || memoryLimit <= 0) {
            throw new IllegalArgumentException("keep and memoryLimit must be positive, were " + keep + " and " + memoryLimit);
        }
        this.stage = stage;
        this.order = Comparator.<Entry, BsonDocument>comparing(Entry::document, sort).thenComparingLong(Entry::arrival);
        this.keep = keep;
        this.memoryLimit = memoryLimit;
        this.spill = spill;
        this.stats = stats;
        this.interruption = interruption;
        this.worstFirst = new PriorityQueue<>(order.reversed());
    }

    /** The sorter of {@code limits}' sort budget, disk use and interruption. */
    public static ExternalSorter of(String stage, Comparator<BsonDocument> sort, long keep, MemoryLimits limits, SpillStats stats) {
        return new ExternalSorter(stage, sort, keep, limits.sortBytes(), limits.allowDiskUse() ? limits.spill() : null, stats,
                limits.interruption(), limits.pool());
    }

    /**
     * Adds one document, estimating its size ({@link BsonSizes}) when there is a budget.
     *
     * @throws CommandException QueryExceededMemoryLimitNoDiskUseAllowed (292) over the budget without disk use
     */
    public void add(BsonDocument document) {
        add(document, memoryLimit == Long.MAX_VALUE ? 0 : document instanceof RawBsonDocument raw ? BsonBytes.size(raw)
                : BsonSizes.ofDocument(document));
    }

    /**
     * Adds one document of {@code size} bytes (its stored size, when the caller has it).
     *
     * @throws CommandException QueryExceededMemoryLimitNoDiskUseAllowed (292) over the budget without disk use; what the
     *                          interruption throws (the sorter is closed then)
     */
    public void add(BsonDocument document, long size) {
        if (arrivals > 0 && arrivals % CHECK_INTERVAL == 0) {
            checkForInterrupt(Interruption::check);
        }
        Entry entry = new Entry(document, size, arrivals++);
        bytes += size;
        pooled += size;
        boolean poolFull = !pool.take(size);
        if (keep == Long.MAX_VALUE) {
            held.add(entry);
        } else {
            worstFirst.add(entry);
            if (worstFirst.size() > keep) {
                long dropped = worstFirst.poll().size();
                bytes -= dropped;
                pooled -= dropped;
                pool.give(dropped);
            }
        }
        if (poolFull && spill != null && bytes >= Math.min(memoryLimit, MIN_POOLED_RUN_BYTES)) {
            writeRun(spill); // the service's blocking stages together hold too much: this one's share goes to disk now
        } else if (bytes > memoryLimit) {
            if (spill == null) {
                throw new CommandException(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed, "Sort exceeded memory limit of "
                        + memoryLimit + " bytes, but did not opt in to external sorting. (" + stage + "; pass allowDiskUse: true"
                        + " or set allowDiskUseByDefault)");
            }
            writeRun(spill);
        }
    }

    /**
     * Everything added, in order (at most {@code keep} documents); the sorter takes no more documents afterwards. The
     * stream reads the runs lazily; closing it closes the sorter.
     *
     * @throws CommandException what the interruption throws before runs are merged (the sorter is closed then)
     */
    public Stream<BsonDocument> sorted() {
        if (!runs.isEmpty()) {
            checkForInterrupt(Interruption::beforeMerge);
        }
        List<Entry> remaining = drain();
        Iterator<BsonDocument> merged = runs.isEmpty() ? remaining.stream().map(Entry::document).iterator() : merge(remaining);
        Stream<BsonDocument> out = StreamSupport.stream(Spliterators.spliteratorUnknownSize(merged, Spliterator.ORDERED), false);
        return (keep == Long.MAX_VALUE ? out : out.limit(keep)).onClose(this::close);
    }

    /** Runs {@code check} on the interruption; closes the sorter when it throws, so that its files go. */
    private void checkForInterrupt(Consumer<Interruption> check) {
        try {
            check.accept(interruption);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** Deletes the runs written and gives back what it held to the pool; idempotent. */
    @Override
    public void close() {
        releasePooled();
        readers.forEach(RunReader::close);
        readers.clear();
        held.clear();
        worstFirst.clear();
        for (Path run : runs) {
            try {
                Files.deleteIfExists(run);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete the spill file " + run, e);
            }
        }
        runs.clear();
    }

    /** The held entries in order; nothing is held afterwards. */
    private List<Entry> drain() {
        List<Entry> entries = new ArrayList<>(keep == Long.MAX_VALUE ? held : worstFirst);
        held.clear();
        worstFirst.clear();
        bytes = 0;
        entries.sort(order);
        return entries;
    }

    private void releasePooled() {
        pool.give(pooled);
        pooled = 0;
    }

    private void writeRun(SpillDirectory spill) {
        List<Entry> entries = drain();
        releasePooled();
        try {
            Path run = spill.newFile(stage);
            runs.add(run);
            long written = 0;
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(run), 1 << 16)) {
                for (Entry entry : entries) {
                    byte[] bson = BsonBytes.encode(entry.document());
                    out.write(bson);
                    written += bson.length;
                }
            }
            stats.spilled(written);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a " + stage + " spill file in " + spill.path(), e);
        }
    }

    private Iterator<BsonDocument> merge(List<Entry> remaining) {
        PriorityQueue<Head> heads = new PriorityQueue<>(Comparator.<Head, Entry>comparing(Head::current, order));
        long run = 0;
        for (Path path : runs) {
            RunReader reader = new RunReader(path);
            readers.add(reader);
            BsonDocument first = reader.next();
            if (first != null) {
                heads.add(new Head(new Entry(first, 0, run), reader::next));
            }
            run++;
        }
        Iterator<Entry> memory = remaining.iterator();
        if (memory.hasNext()) {
            long last = run;
            heads.add(new Head(memory.next().withArrival(last), () -> memory.hasNext() ? memory.next().document() : null));
        }
        return new Iterator<>() {
            private long merged;

            @Override
            public boolean hasNext() {
                return !heads.isEmpty();
            }

            @Override
            public BsonDocument next() {
                if (++merged % CHECK_INTERVAL == 0) {
                    checkForInterrupt(Interruption::check);
                }
                Head head = heads.poll();
                if (head == null) {
                    throw new NoSuchElementException();
                }
                BsonDocument following = head.rest().next();
                if (following != null) {
                    heads.add(new Head(new Entry(following, 0, head.current().arrival()), head.rest()));
                }
                return head.current().document();
            }
        };
    }

    /** One held document; {@code arrival} orders equal ones (the arrival number in memory, the run number in a merge). */
    private record Entry(BsonDocument document, long size, long arrival) {
        Entry withArrival(long run) {
            return new Entry(document, size, run);
        }
    }

    /** A source of the merge: its current document and the rest (null at its end). */
    private record Head(Entry current, Source rest) {}

    @FunctionalInterface
    private interface Source {
        @Nullable BsonDocument next();
    }

    /** Reads a run's documents one by one; closes its file at the end. */
    private static final class RunReader {
        private final Path path;
        private @Nullable DataInputStream in;

        RunReader(Path path) {
            this.path = path;
            try {
                this.in = new DataInputStream(new BufferedInputStream(Files.newInputStream(path), 1 << 16));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the spill file " + path, e);
            }
        }

        @Nullable BsonDocument next() {
            if (in == null) {
                return null;
            }
            try {
                byte[] bson = SpillFiles.next(in, path);
                if (bson == null) {
                    close();
                    return null;
                }
                return new RawBsonDocument(bson).decode(CODEC);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the spill file " + path, e);
            }
        }

        void close() {
            if (in != null) {
                try {
                    in.close();
                } catch (IOException e) {
                    // the file is deleted next; a failed close of a read-only stream loses nothing
                }
                in = null;
            }
        }
    }
}
