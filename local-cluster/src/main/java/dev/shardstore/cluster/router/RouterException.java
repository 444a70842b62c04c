package dev.shardstore.cluster.router;

/** The router could not be reached, answered something that is not a command reply, or refused a command. */
public final class RouterException extends RuntimeException {
    public RouterException(String message) {
        super(message);
    }

    public RouterException(String message, Throwable cause) {
        super(message, cause);
    }
}
