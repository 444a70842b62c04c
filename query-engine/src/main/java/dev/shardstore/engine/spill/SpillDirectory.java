package dev.shardstore.engine.spill;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The one directory a service writes its spill files to ({@code <stage>-<random>.spill}). Each file belongs to one
 * {@link ExternalSorter}, which deletes it when it is closed; {@link #open} deletes the files a killed process left.
 * Thread-safe.
 */
public final class SpillDirectory {
    static final String SUFFIX = ".spill";

    private final Path directory;

    private SpillDirectory(Path directory) {
        this.directory = directory;
    }

    /**
     * The spill directory at {@code directory}, created if missing, emptied of the spill files a previous process left
     * (one killed while it spilled never deleted its own).
     *
     * @throws UncheckedIOException when the directory cannot be created or listed
     */
    public static SpillDirectory open(Path directory) {
        SpillDirectory spill = new SpillDirectory(directory.toAbsolutePath().normalize());
        try {
            Files.createDirectories(spill.directory);
            for (Path leftover : spill.files()) {
                Files.deleteIfExists(leftover);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the spill directory " + directory, e);
        }
        return spill;
    }

    /**
     * A service's spill directory as configured: {@code directory} when given ({@link #open}), else this process's own
     * under {@code <java.io.tmpdir>/shardstore-spill} ({@link #forProcess}).
     */
    public static SpillDirectory configured(String directory) {
        return directory.isBlank() ? forProcess(Path.of(System.getProperty("java.io.tmpdir"), "shardstore-spill")) : open(Path.of(directory));
    }

    /**
     * The spill directory of this process under {@code root}: {@code root/<pid>}, for a service started without a
     * directory of its own (several may run on one machine, and tests run several at once). The directories of
     * processes that no longer run (killed while they spilled) are deleted first.
     *
     * @throws UncheckedIOException when a directory cannot be created, listed or deleted
     */
    public static SpillDirectory forProcess(Path root) {
        try {
            Files.createDirectories(root);
            try (Stream<Path> siblings = Files.list(root)) {
                for (Path sibling : siblings.toList()) {
                    if (deadProcess(sibling.getFileName().toString())) {
                        deleteTree(sibling);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the spill directories under " + root, e);
        }
        return open(root.resolve(Long.toString(ProcessHandle.current().pid())));
    }

    private static boolean deadProcess(String name) {
        if (!name.chars().allMatch(Character::isDigit) || name.isEmpty() || name.length() > 18) {
            return false;
        }
        return ProcessHandle.of(Long.parseLong(name)).map(p -> !p.isAlive()).orElse(true);
    }

    private static void deleteTree(Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            for (Path entry : entries.toList()) {
                Files.deleteIfExists(entry);
            }
        }
        Files.deleteIfExists(directory);
    }

    /** Where the files are. */
    public Path path() {
        return directory;
    }

    /** The spill files now in the directory (of sorts still running or cursors still open). */
    public List<Path> files() {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.filter(p -> p.getFileName().toString().endsWith(SUFFIX)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the spill directory " + directory, e);
        }
    }

    /** A new empty spill file for {@code stage} (e.g. "sort"), which the caller deletes. */
    Path newFile(String stage) throws IOException {
        return Files.createTempFile(directory, stage.replace("$", ""), SUFFIX);
    }
}
