package dev.shardstore.console;

/** A request to the cluster that failed; {@link #error()} is what the page shows. */
public final class ClusterException extends RuntimeException {
    private final ClusterError error;

    public ClusterException(ClusterError error) {
        super(error.source() + ": " + error.describe());
        this.error = error;
    }

    public ClusterError error() {
        return error;
    }
}
