package dev.shardstore.cluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Starts detached processes and stops them. A started process runs in a session of its own
 * ({@code setsid}), so it outlives the launcher and a Ctrl-C in the launcher's terminal; its stdout
 * and stderr go to a log file and its stdin is {@code /dev/null}.
 */
final class ProcessControl {
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);
    private static final List<String> DETACH = detachPrefix();

    private ProcessControl() {}

    /**
     * Starts {@code command} detached.
     *
     * @param append true to append to {@code log} (a restart), false to start it afresh
     * @throws UncheckedIOException naming the component when the process cannot be started
     */
    public static ProcessRecord spawn(String name, int port, List<String> command, Path log, boolean append) {
        List<String> full = new ArrayList<>(DETACH);
        full.addAll(command);
        try {
            Files.createDirectories(log.getParent());
            if (append) {
                Files.writeString(log, "%n=== %s restarted at %s ===%n".formatted(name, Instant.now()),
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } else {
                Files.deleteIfExists(log);
            }
            Process process = new ProcessBuilder(full)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectErrorStream(true)
                    .start();
            Instant startedAt = process.info().startInstant().orElse(Instant.EPOCH);
            return new ProcessRecord(name, process.pid(), startedAt, port, command, log.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + " (" + String.join(" ", command) + "): " + e.getMessage(), e);
        }
    }

    /**
     * Stops processes gracefully: SIGTERM to each, then waits up to {@code grace} for all of them;
     * whatever still runs then (and any process they had started) gets SIGKILL.
     *
     * @return the names of the processes that had to be killed
     */
    public static List<String> terminate(Collection<ProcessRecord> records, Duration grace) {
        List<Running> running = records.stream()
                .flatMap(r -> r.handle().stream().map(h -> new Running(r.name(), h, h.descendants().toList())))
                .toList();
        running.forEach(r -> r.process().destroy());
        long deadline = System.nanoTime() + grace.toNanos();
        List<String> killed = new ArrayList<>();
        for (Running r : running) {
            if (!awaitExit(r.process(), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                killed.add(r.name());
            }
            List<ProcessHandle> tree = new ArrayList<>(r.descendants());
            tree.add(r.process());
            killAll(tree);
        }
        return killed;
    }

    /** SIGKILL to the recorded process, if it still runs, and every process it started; waits until they are gone. */
    public static void kill(ProcessRecord record) {
        record.handle().ifPresent(ProcessControl::killTree);
    }

    /** SIGKILL to {@code process} and every process it started; waits until they are gone. */
    public static void killTree(ProcessHandle process) {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process);
        killAll(tree);
    }

    private static void killAll(List<ProcessHandle> processes) {
        processes.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        CompletableFuture.allOf(processes.stream().map(ProcessHandle::onExit).toArray(CompletableFuture[]::new))
                .completeOnTimeout(null, KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS)
                .join();
    }

    private static boolean awaitExit(ProcessHandle process, Duration timeout) {
        try {
            process.onExit().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            return !process.isAlive();
        }
    }

    private static List<String> detachPrefix() {
        boolean hasSetsid = Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, "setsid")));
        return hasSetsid ? List.of("setsid") : List.of();
    }

    /** A process with the descendants it had when it was asked to stop. */
    private record Running(String name, ProcessHandle process, List<ProcessHandle> descendants) {}
}
