package dev.shardstore.cluster.it;

import dev.shardstore.cluster.ComponentStatus;
import dev.shardstore.cluster.LocalCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * When a test of an end-to-end class fails, writes a thread dump of every running service of its cluster
 * ({@code jcmd <pid> Thread.print}) beside the service's log, as {@code <service>.threads-<test>.txt}, while the processes
 * still live, so that a hang seen once on a loaded machine (a coordinator that never finishes, a request that never
 * returns) can be read afterwards instead of guessed at. Register it with {@code @RegisterExtension} on a static field.
 */
final class ThreadDumpOnFailure implements TestWatcher {
    private final Supplier<LocalCluster> cluster;

    /** @param cluster the class's cluster; null while it has not started (nothing is dumped then) */
    ThreadDumpOnFailure(Supplier<LocalCluster> cluster) {
        this.cluster = cluster;
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        LocalCluster running = cluster.get();
        if (running == null) {
            return;
        }
        Path jcmd = Path.of(ProcessHandle.current().info().command().orElse("java")).resolveSibling("jcmd");
        String test = context.getRequiredTestMethod().getName();
        for (ComponentStatus status : running.status()) {
            if (!status.running() || status.pid().isEmpty() || !status.component().role().isService()) {
                continue;
            }
            Path out = running.home().log(status.component().name()).resolveSibling(status.component().name() + ".threads-" + test + ".txt");
            try {
                int exit = new ProcessBuilder(jcmd.toString(), Long.toString(status.pid().getAsLong()), "Thread.print")
                        .redirectErrorStream(true).redirectOutput(out.toFile()).start().waitFor();
                System.out.println("[thread dump] " + status.component().name() + " (jcmd exit " + exit + "): " + out);
            } catch (IOException e) {
                System.out.println("[thread dump] " + status.component().name() + " failed: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
