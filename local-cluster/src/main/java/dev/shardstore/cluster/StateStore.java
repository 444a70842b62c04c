package dev.shardstore.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** Reads and writes a cluster's {@code cluster.json}; writes are atomic (temp file, then rename). */
final class StateStore {
    /**
     * A field a {@code cluster.json} written by an older launcher lacks reads as its type's default: {@code console}
     * (added with the operator's console) as false, so a cluster started before it still attaches, status and stops.
     */
    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES).build();

    private final Path file;

    StateStore(ClusterHome home) {
        this.file = home.stateFile();
    }

    /**
     * The recorded state, empty when no cluster was started in this home (or it was shut down).
     *
     * @throws IllegalStateException when the file exists but cannot be read
     */
    public Optional<ClusterState> load() {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readValue(file.toFile(), ClusterState.class));
        } catch (JacksonException e) {
            throw new IllegalStateException("cannot read " + file + " (" + e.getOriginalMessage()
                    + "); stop leftover processes by hand and delete it", e);
        }
    }

    /** Replaces the recorded state. */
    public synchronized void save(ClusterState state) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            JSON.writeValue(tmp.toFile(), state);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | JacksonException e) {
            throw new IllegalStateException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Forgets the cluster (after it was stopped). */
    public void delete() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + file, e);
        }
    }
}
