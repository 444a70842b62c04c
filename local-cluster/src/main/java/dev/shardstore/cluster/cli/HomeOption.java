package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** {@code --home DIR}: which cluster a command acts on (default: {@code .cluster} at the repository root). */
final class HomeOption {
    @Option(names = "--home", paramLabel = "DIR", description = "state directory of the cluster (default: .cluster in the repository)")
    Path home;

    /** The given directory, else the repository's {@code .cluster}. */
    Path dir() {
        return home != null ? home : RepoLayout.detect().defaultHome();
    }

    /** The cluster recorded in the home, if any of its processes still runs. */
    Optional<LocalCluster> running(PrintWriter out) {
        return attach(out).filter(LocalCluster::isRunning);
    }

    /**
     * The running cluster recorded in the home, its progress lines on stderr.
     *
     * @throws IllegalStateException when none runs (naming the home and {@code ./cluster up})
     */
    LocalCluster requireRunning() {
        return running(new PrintWriter(System.err, true))
                .orElseThrow(() -> new IllegalStateException("no running cluster in " + dir() + "; start one with ./cluster up"));
    }

    /** The cluster recorded in the home; its progress lines go to {@code out}. */
    Optional<LocalCluster> attach(PrintWriter out) {
        return LocalCluster.attach(dir(), line -> {
            out.println(line);
            out.flush();
        });
    }
}
