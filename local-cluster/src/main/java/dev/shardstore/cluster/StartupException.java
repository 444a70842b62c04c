package dev.shardstore.cluster;

/** A component did not come up: it exited, or was not ready in time. The message names its log file. */
public final class StartupException extends RuntimeException {
    public StartupException(String message) {
        super(message);
    }
}
