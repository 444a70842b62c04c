package dev.shardstore.cluster;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A process the launcher started, as recorded in {@code cluster.json}.
 *
 * @param name      the component name
 * @param pid       the OS process id
 * @param startedAt the process start time reported by the OS, which tells a live process from a
 *                  later one that reuses the pid
 * @param port      the component's port
 * @param command   the full command line, so a later launcher can start it again
 * @param log       the file its stdout and stderr go to
 */
record ProcessRecord(String name, long pid, Instant startedAt, int port, List<String> command, String log) {

    public ProcessRecord {
        command = List.copyOf(command);
    }

    /** The live process, if it is still the one that was started. */
    public Optional<ProcessHandle> handle() {
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(p -> p.info().startInstant().map(startedAt::equals).orElse(true));
    }

    /** Whether the recorded process still runs. */
    public boolean running() {
        return handle().isPresent();
    }
}
