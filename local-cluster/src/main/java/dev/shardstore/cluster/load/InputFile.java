package dev.shardstore.cluster.load;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.zip.GZIPInputStream;

/**
 * A file to load, opened for streaming: its format comes from its name ({@code .json},
 * {@code .jsonl}, {@code .ndjson}, {@code .csv}, each optionally followed by {@code .gz}, which is
 * decompressed on the fly). {@link #bytesRead()} counts the bytes read from disk (compressed), so
 * that progress can be shown against {@link #size()}.
 */
public final class InputFile implements AutoCloseable {
    /** The formats the loader reads. */
    public enum Format { JSON, CSV }

    private final Path path;
    private final Format format;
    private final long size;
    private final CountingInputStream counting;
    private final InputStream content;

    private InputFile(Path path, Format format, long size, CountingInputStream counting, InputStream content) {
        this.path = path;
        this.format = format;
        this.size = size;
        this.counting = counting;
        this.content = content;
    }

    /**
     * Opens {@code path}.
     *
     * @throws IllegalArgumentException when the file does not exist, is not a regular file, or its name
     *                                  names no supported format
     * @throws UncheckedIOException     when it cannot be read, or a {@code .gz} file is not gzip
     */
    public static InputFile open(Path path) {
        if (!Files.exists(path)) {
            throw new IllegalArgumentException("file not found: " + path.toAbsolutePath());
        }
        if (!Files.isRegularFile(path)) {
            throw new IllegalArgumentException("not a regular file: " + path.toAbsolutePath());
        }
        String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
        boolean gzip = name.endsWith(".gz");
        Format format = formatOf(gzip ? name.substring(0, name.length() - 3) : name)
                .orElseThrow(() -> new IllegalArgumentException("cannot tell the format of " + path
                        + ": name it *.json (an array or one object per line), *.jsonl, *.ndjson or *.csv (with a header), optionally with .gz"));
        try {
            long size = Files.size(path);
            CountingInputStream counting = new CountingInputStream(Files.newInputStream(path));
            InputStream content = gzip ? new GZIPInputStream(counting, 1 << 16) : new BufferedInputStream(counting, 1 << 16);
            return new InputFile(path, format, size, counting, content);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("file not found: " + path.toAbsolutePath(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + (gzip ? " as gzip" : "") + ": " + e.getMessage(), e);
        }
    }

    private static Optional<Format> formatOf(String name) {
        if (name.endsWith(".json") || name.endsWith(".jsonl") || name.endsWith(".ndjson")) {
            return Optional.of(Format.JSON);
        }
        if (name.endsWith(".csv")) {
            return Optional.of(Format.CSV);
        }
        return Optional.empty();
    }

    public Path path() {
        return path;
    }

    public Format format() {
        return format;
    }

    /** The file's size on disk in bytes. */
    public long size() {
        return size;
    }

    /** Bytes read from disk so far (compressed bytes for a {@code .gz} file). */
    public long bytesRead() {
        return counting.count;
    }

    /** The decompressed content. */
    public InputStream content() {
        return content;
    }

    @Override
    public void close() {
        try {
            content.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing " + path + " failed", e);
        }
    }

    private static final class CountingInputStream extends FilterInputStream {
        private volatile long count;

        CountingInputStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            count += skipped;
            return skipped;
        }
    }
}
