package dev.shardstore.engine.spill;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/** The format of a spill file: BSON documents back to back, each starting with its own length (little-endian int32). */
final class SpillFiles {
    private SpillFiles() {
    }

    /**
     * The next document's bytes from {@code in}, or null at the end of the file.
     *
     * @throws EOFException a document cut short (a truncated file)
     */
    static byte @Nullable [] next(InputStream in, Path path) throws IOException {
        byte[] length = in.readNBytes(4);
        if (length.length == 0) {
            return null;
        }
        if (length.length < 4) {
            throw new EOFException("truncated spill file " + path);
        }
        int size = (length[0] & 0xff) | (length[1] & 0xff) << 8 | (length[2] & 0xff) << 16 | (length[3] & 0xff) << 24;
        byte[] bson = new byte[size];
        System.arraycopy(length, 0, bson, 0, 4);
        if (in.readNBytes(bson, 4, size - 4) < size - 4) {
            throw new EOFException("truncated spill file " + path);
        }
        return bson;
    }
}
