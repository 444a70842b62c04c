package dev.shardstore.cluster;

import java.nio.file.Path;

/** A start was asked for in a home whose recorded cluster still runs. */
public final class ClusterRunningException extends IllegalStateException {
    public ClusterRunningException(Path home) {
        super("a cluster recorded in " + home + " is already running; stop it first (./cluster down"
                + " --home " + home + ") or use another --home and --port-offset");
    }
}
