package dev.shardstore.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The directory where zonky unpacks PostgreSQL's binaries ({@code <working dir>/PG-<digest>/}), and the repair of an
 * unpack that a killed or failed JVM left half done.
 *
 * <p>zonky marks a finished unpack with the file {@code .exists} and serialises unpacking with a file lock on
 * {@code epg-lock} inside the directory. An unpack that dies midway (out of heap, {@code kill -9}) leaves the
 * directory without the marker; the next unpack into it then fails on the first file that exists already
 * ({@code FileAlreadyExistsException: .../lib/libpq.so}), forever. {@link #discardPartialUnpacks} empties such a
 * directory when no process holds its lock, so zonky unpacks it again from the start.
 */
public final class PostgresBinaries {
    private static final Logger log = LoggerFactory.getLogger(PostgresBinaries.class);
    /** zonky's system property for its working directory. */
    static final String WORKING_DIRECTORY_PROPERTY = "ot.epg.working-dir";
    static final String FINISHED_MARKER = ".exists";
    static final String LOCK_FILE = "epg-lock";

    private PostgresBinaries() {}

    /**
     * The working directory zonky uses: {@code override} when given, else {@code $ot.epg.working-dir/embedded-pg}, else
     * {@code $java.io.tmpdir/embedded-pg} (zonky's own rule).
     */
    public static Path workingDirectory(Optional<Path> override) {
        return override.orElseGet(() -> Path.of(System.getProperty(WORKING_DIRECTORY_PROPERTY, System.getProperty("java.io.tmpdir")), "embedded-pg"))
                .toAbsolutePath();
    }

    /**
     * Empties every {@code PG-*} directory under {@code workingDirectory} that has no finished marker and whose lock no
     * process holds (an unpack that died); a directory another process is unpacking right now is left alone.
     *
     * @return the directories it emptied
     * @throws UncheckedIOException when a directory cannot be read or emptied
     */
    public static List<Path> discardPartialUnpacks(Path workingDirectory) {
        List<Path> discarded = new ArrayList<>();
        if (!Files.isDirectory(workingDirectory)) {
            return discarded;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(workingDirectory, "PG-*")) {
            for (Path dir : dirs) {
                if (Files.isDirectory(dir) && !Files.exists(dir.resolve(FINISHED_MARKER)) && emptyUnlessLocked(dir)) {
                    log.warn("discarded a PostgreSQL unpack that did not finish: {}", dir);
                    discarded.add(dir);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot inspect PostgreSQL's binaries under " + workingDirectory, e);
        }
        return discarded;
    }

    /** Deletes everything in {@code dir} but its lock file, holding that lock; false when another process holds it. */
    private static boolean emptyUnlessLocked(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = tryLock(channel)) {
            if (lock == null || Files.exists(dir.resolve(FINISHED_MARKER))) {
                return false;
            }
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    if (!p.equals(dir) && !p.getFileName().toString().equals(LOCK_FILE)) {
                        Files.delete(p);
                    }
                }
            }
            return true;
        }
    }

    private static @Nullable FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null; // this JVM is unpacking it right now
        }
    }
}
