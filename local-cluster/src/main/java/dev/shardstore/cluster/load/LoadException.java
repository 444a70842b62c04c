package dev.shardstore.cluster.load;

/** The input could not be loaded: malformed content (the message names file and position) or a fatal router failure. */
public final class LoadException extends RuntimeException {
    public LoadException(String message) {
        super(message);
    }

    public LoadException(String message, Throwable cause) {
        super(message, cause);
    }
}
