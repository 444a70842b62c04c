package dev.shardstore.router.wire;

import com.github.luben.zstd.Zstd;
import dev.shardstore.transport.wire.MalformedMessageException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
import org.xerial.snappy.Snappy;

/**
 * OP_COMPRESSED's compressors, with MongoDB's ids and handshake names: snappy ({@code org.xerial.snappy}), zlib
 * (the JDK's {@link Deflater}/{@link Inflater}) and zstd ({@code com.github.luben:zstd-jni}). snappy and zstd load
 * native code; a compressor whose library fails to load on this machine is not {@link #available()} and so is
 * never advertised in {@code hello}.
 */
public enum Compressor {
    SNAPPY(1, "snappy"),
    ZLIB(2, "zlib"),
    ZSTD(3, "zstd");

    private final int id;
    private final String wireName;
    /** Whether the library works here; null until {@link #available()} first checks. */
    private volatile @Nullable Boolean available;

    Compressor(int id, String wireName) {
        this.id = id;
        this.wireName = wireName;
    }

    /** The {@code compressorId} byte of OP_COMPRESSED. */
    public int id() {
        return id;
    }

    /** The name in {@code hello}'s {@code compression} array. */
    public String wireName() {
        return wireName;
    }

    /** The compressor with {@code id}, or empty (also for noop, 0, which this router never negotiates). */
    public static Optional<Compressor> ofId(int id) {
        return Arrays.stream(values()).filter(c -> c.id == id).findFirst();
    }

    /** The available compressor called {@code name} in a handshake, or empty. */
    public static Optional<Compressor> ofName(String name) {
        return Arrays.stream(values()).filter(c -> c.wireName.equals(name) && c.available()).findFirst();
    }

    /** Whether this compressor's library works here (checked once with a round trip). */
    public boolean available() {
        Boolean known = available;
        if (known == null) {
            byte[] probe = "shardstore".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            try {
                known = Arrays.equals(probe, decompress(compress(probe), probe.length));
            } catch (RuntimeException | LinkageError e) {
                LoggerFactory.getLogger(Compressor.class).warn("compressor {} is unavailable: {}", wireName, e.toString());
                known = false;
            }
            available = known;
        }
        return known;
    }

    /** Compresses {@code data}. */
    public byte[] compress(byte[] data) {
        try {
            return switch (this) {
                case SNAPPY -> Snappy.compress(data);
                case ZSTD -> Zstd.compress(data);
                case ZLIB -> deflate(data);
            };
        } catch (IOException e) {
            throw new IllegalStateException(wireName + " compression failed", e);
        }
    }

    /**
     * Decompresses {@code data}, which must expand to exactly {@code expectedSize} bytes (never more is allocated).
     *
     * @throws MalformedMessageException when the data is corrupt or does not expand to {@code expectedSize}
     */
    public byte[] decompress(byte[] data, int expectedSize) {
        byte[] out;
        try {
            out = switch (this) {
                case SNAPPY -> {
                    if (Snappy.uncompressedLength(data) != expectedSize) {
                        throw new MalformedMessageException("snappy payload does not expand to " + expectedSize + " bytes");
                    }
                    byte[] into = new byte[expectedSize];
                    Snappy.uncompress(data, 0, data.length, into, 0);
                    yield into;
                }
                case ZSTD -> Zstd.decompress(data, expectedSize);
                case ZLIB -> inflate(data, expectedSize);
            };
        } catch (MalformedMessageException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new MalformedMessageException(wireName + " payload does not decompress: " + e.getMessage(), e);
        }
        if (out.length != expectedSize) {
            throw new MalformedMessageException(wireName + " payload expands to " + out.length + " bytes, not " + expectedSize);
        }
        return out;
    }

    private static byte[] deflate(byte[] data) {
        Deflater deflater = new Deflater();
        try {
            deflater.setInput(data);
            deflater.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, data.length / 2));
            byte[] chunk = new byte[8192];
            while (!deflater.finished()) {
                out.write(chunk, 0, deflater.deflate(chunk));
            }
            return out.toByteArray();
        } finally {
            deflater.end();
        }
    }

    private static byte[] inflate(byte[] data, int expectedSize) {
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(data);
            byte[] out = new byte[expectedSize];
            int n = 0;
            while (n < expectedSize && !inflater.finished()) {
                int got = inflater.inflate(out, n, expectedSize - n);
                if (got == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    break;
                }
                n += got;
            }
            if (n != expectedSize || !inflater.finished()) {
                throw new MalformedMessageException("zlib payload does not expand to exactly " + expectedSize + " bytes");
            }
            return out;
        } catch (DataFormatException e) {
            throw new MalformedMessageException("zlib payload does not decompress: " + e.getMessage(), e);
        } finally {
            inflater.end();
        }
    }
}
