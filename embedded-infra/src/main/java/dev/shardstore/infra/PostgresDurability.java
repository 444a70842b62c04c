package dev.shardstore.infra;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Whether the embedded PostgreSQL makes a commit survive a crash of the machine (docs/architecture.md "Durability").
 *
 * <p>{@link #DURABLE}, the default everywhere a user starts a server ({@code ./cluster up}, {@code ./cluster demo}), runs
 * with {@code fsync}, {@code synchronous_commit} and {@code full_page_writes} on: a commit is in the write-ahead log on
 * disk before PostgreSQL answers it, as PostgreSQL manual "Reliability and the Write-Ahead Log" requires of
 * a crash-safe server. {@link #FAST} is what the embedded server ran with before (zonky's defaults): {@code fsync} and
 * {@code synchronous_commit} off, so nothing is flushed per commit, and a power loss can lose acknowledged commits and
 * corrupt the cluster's files. It is for tests and benchmarks that ask for it by name ({@code --durability fast},
 * {@link #PROPERTY}); a server started with it says "not crash-safe".
 */
public enum PostgresDurability {
    /** Every commit flushed before it is acknowledged: crash-safe. */
    DURABLE("on"),
    /** No flushes of the write-ahead log or the data files: fast and not crash-safe. */
    FAST("off");

    /**
     * The system property that chooses the durability of a server started with defaults (the services' test
     * servers of {@link EmbeddedInfra}, a {@code LocalCluster} started from code): {@code durable} (the default) or
     * {@code fast}. The build sets {@code fast} for the test suite in one place, the root {@code pom.xml}.
     */
    public static final String PROPERTY = "shardstore.postgres.durability";

    private final String flag;

    PostgresDurability(String flag) {
        this.flag = flag;
    }

    /**
     * The PostgreSQL server settings of this durability, name to value, e.g. {@code fsync=on}. They are given on the
     * postmaster's command line after zonky's own {@code -F} (fsync off) and {@code synchronous_commit=off}, which
     * they override. {@code full_page_writes} stays on in both: off, a torn page after a crash is unrecoverable even
     * for the fast setting's users, who only give up the last commits.
     */
    public Map<String, String> serverSettings() {
        return Map.of("fsync", flag, "synchronous_commit", flag, "full_page_writes", "on");
    }

    /** Whether a crash of the machine can lose acknowledged commits. */
    public boolean crashSafe() {
        return this == DURABLE;
    }

    /** The name users type: {@code durable} or {@code fast}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** A line for a start-up log: the label, and for {@link #FAST} the warning that it is not crash-safe. */
    public String describe() {
        return crashSafe()
                ? "PostgreSQL durability: durable (fsync, synchronous_commit and full_page_writes on)"
                : "PostgreSQL durability: fast (fsync and synchronous_commit off): not crash-safe,"
                        + " a crash of the machine can lose acknowledged writes";
    }

    /**
     * Parses a user's value, case-insensitively; null or blank means {@link #DURABLE}.
     *
     * @throws IllegalArgumentException for anything but {@code durable} or {@code fast}, naming both
     */
    public static PostgresDurability parse(@Nullable String value) {
        if (value == null || value.isBlank()) {
            return DURABLE;
        }
        String wanted = value.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(d -> d.label().equals(wanted)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown PostgreSQL durability '" + value + "': use "
                        + Arrays.stream(values()).map(PostgresDurability::label).collect(Collectors.joining(" or "))));
    }

    /** The durability {@link #PROPERTY} asks for in this JVM; {@link #DURABLE} when it is not set. */
    public static PostgresDurability fromSystemProperty() {
        return parse(System.getProperty(PROPERTY));
    }
}
