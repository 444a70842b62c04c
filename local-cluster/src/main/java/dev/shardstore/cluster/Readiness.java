package dev.shardstore.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Waits for a just-started component to be ready: the PostgreSQL and Kafka holders write a ready file
 * once they serve (and PostgreSQL has its databases); a service is ready when its health is {@code UP}.
 * Fails fast when the process exits, quoting the end of its log.
 */
final class Readiness {
    private static final Duration POLL = Duration.ofMillis(250);
    private static final int LOG_TAIL_LINES = 15;

    private final ClusterHome home;

    Readiness(ClusterHome home) {
        this.home = home;
    }

    /**
     * Blocks until {@code component}, started as {@code process}, is ready.
     *
     * @param deadline a {@link System#nanoTime()} value
     * @throws StartupException when the process exits first or the deadline passes
     */
    void await(Component component, ProcessRecord process, long deadline, Duration timeout) {
        Path log = Path.of(process.log());
        String lastSeen = "no answer yet";
        while (true) {
            if (component.role().isService()) {
                Health health = Health.of(component);
                if (health.up()) {
                    return;
                }
                lastSeen = health.detail();
            } else if (Files.exists(home.readyFile(component.name()))) {
                return;
            }
            if (!process.running()) {
                throw new StartupException(component.name() + " exited during startup; see " + log + tail(log));
            }
            if (System.nanoTime() > deadline) {
                throw new StartupException(component.name() + " was not ready within " + timeout.toSeconds() + " s"
                        + (component.role().isService() ? " (GET " + component.url() + "/actuator/health: " + lastSeen + ")" : "")
                        + "; see " + log + tail(log));
            }
            sleep();
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            List<String> last = lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size());
            return last.isEmpty() ? "" : "; its last lines:\n  " + String.join("\n  ", last);
        } catch (IOException e) {
            return "";
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(POLL);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartupException("interrupted while waiting for the cluster to start");
        }
    }
}
