package dev.shardstore.engine.spill;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * A stage's input held to be read more than once ({@code $facet}'s sub-pipelines each read all of it), within the sort
 * budget: in memory up to it, then, with disk use allowed, every document in one spill file in arrival order, read
 * again from its start for each reader. Without disk use, going over the budget is
 * QueryExceededMemoryLimitNoDiskUseAllowed (292). Closing it deletes the file. Used by one thread at a time.
 */
public final class SpillBuffer implements AutoCloseable {
    private final String stage;
    private final MemoryLimits limits;
    private final SpillStats stats;
    private final List<BsonDocument> held = new ArrayList<>();
    private long bytes;
    private @Nullable Path file;
    private @Nullable OutputStream out;

    /** @param stage the stage named in errors and the file's name */
    public SpillBuffer(String stage, MemoryLimits limits, SpillStats stats) {
        this.stage = stage;
        this.limits = limits;
        this.stats = stats;
    }

    /**
     * Adds one document.
     *
     * @throws CommandException 292 over the budget without disk use
     */
    public void add(BsonDocument document) {
        if (out != null) {
            write(document);
            return;
        }
        held.add(document);
        bytes += limits.sortBytes() == Long.MAX_VALUE ? 0
                : document instanceof RawBsonDocument raw ? BsonBytes.size(raw) : BsonSizes.ofDocument(document);
        if (bytes > limits.sortBytes()) {
            SpillDirectory spill = limits.spill();
            if (!limits.allowDiskUse() || spill == null) {
                throw new CommandException(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed, stage + " exceeded its memory limit of "
                        + limits.sortBytes() + " bytes holding its input, but did not opt in to external sorting; pass allowDiskUse: true");
            }
            try {
                file = spill.newFile(stage);
                out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write a " + stage + " spill file in " + spill.path(), e);
            }
            held.forEach(this::write);
            held.clear();
            bytes = 0;
        }
    }

    private void write(BsonDocument document) {
        byte[] bson = BsonBytes.encode(document);
        OutputStream to = Objects.requireNonNull(out, "the file is open while documents are written to it");
        try {
            to.write(bson);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the spill file " + file, e);
        }
        stats.spilled(bson.length);
    }

    /** Every document added, in order, read again from the start; the buffer takes no more documents once read. */
    public Iterator<BsonDocument> read() {
        if (file == null) {
            return List.copyOf(held).iterator();
        }
        try {
            if (out != null) {
                out.close();
                out = null;
            }
            DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16));
            return new FileIterator(in, file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the spill file " + file, e);
        }
    }

    /** Deletes the file; idempotent. */
    @Override
    public void close() {
        held.clear();
        try {
            if (out != null) {
                out.close();
                out = null;
            }
            if (file != null) {
                Files.deleteIfExists(file);
                file = null;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the spill file " + file, e);
        }
    }

    /** One pass over the file; it closes its stream at the end. */
    private static final class FileIterator implements Iterator<BsonDocument> {
        private final InputStream in;
        private final Path path;
        private @Nullable BsonDocument next;
        private boolean done;

        FileIterator(InputStream in, Path path) {
            this.in = in;
            this.path = path;
        }

        @Override
        public boolean hasNext() {
            if (next == null && !done) {
                next = readOne();
            }
            return next != null;
        }

        @Override
        public BsonDocument next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            BsonDocument document = Objects.requireNonNull(next, "hasNext read it");
            next = null;
            return document;
        }

        private @Nullable BsonDocument readOne() {
            try {
                byte[] bson = SpillFiles.next(in, path);
                if (bson == null) {
                    done = true;
                    in.close();
                    return null;
                }
                return new RawBsonDocument(bson);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the spill file " + path, e);
            }
        }
    }
}
