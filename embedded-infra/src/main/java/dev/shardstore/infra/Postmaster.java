package dev.shardstore.infra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL server process recorded in a data directory's {@code postmaster.pid}. The postmaster
 * is started through {@code pg_ctl}, so it is not a child of the JVM that started it and outlives it
 * when that JVM is killed; this finds and stops such a leftover so the data directory can be reused.
 */
public final class Postmaster {
    private static final Logger log = LoggerFactory.getLogger(Postmaster.class);

    private Postmaster() {}

    /**
     * The live postmaster process that owns {@code dataDirectory}, if any: the pid in its
     * {@code postmaster.pid} names a running process whose command is a PostgreSQL binary.
     */
    public static Optional<ProcessHandle> find(Path dataDirectory) {
        Path pidFile = dataDirectory.resolve("postmaster.pid");
        List<String> lines;
        try {
            lines = Files.exists(pidFile) ? Files.readAllLines(pidFile) : List.of();
        } catch (IOException e) {
            return Optional.empty();
        }
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        long pid;
        try {
            pid = Long.parseLong(lines.get(0).trim());
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(p -> p.info().command().map(c -> c.contains("postgres")).orElse(true));
    }

    /**
     * Stops the postmaster of {@code dataDirectory} if one is running: a fast shutdown (SIGINT, which
     * disconnects clients and checkpoints), then SIGKILL if it has not exited within {@code grace}.
     *
     * @return true if a postmaster was running
     */
    public static boolean stop(Path dataDirectory, Duration grace) {
        Optional<ProcessHandle> postmaster = find(dataDirectory);
        if (postmaster.isEmpty()) {
            return false;
        }
        ProcessHandle process = postmaster.get();
        log.info("stopping PostgreSQL postmaster {} left running on {}", process.pid(), dataDirectory);
        signalInterrupt(process.pid());
        try {
            process.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            process.destroyForcibly();
            process.onExit().orTimeout(5, TimeUnit.SECONDS).exceptionally(t -> null).join();
        }
        return true;
    }

    /** PostgreSQL's "fast shutdown" signal; Java can only send SIGTERM/SIGKILL itself. */
    private static void signalInterrupt(long pid) {
        try {
            new ProcessBuilder("kill", "-INT", Long.toString(pid)).inheritIO().start().waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
