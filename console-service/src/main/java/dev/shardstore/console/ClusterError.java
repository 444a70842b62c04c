package dev.shardstore.console;

import java.util.Objects;

/**
 * A refusal or failure the cluster answered (or a request that could not reach it), as a page shows it: MongoDB's error
 * code and name and the message, with what the console asked.
 *
 * @param source  what was asked, e.g. {@code balancerStatus} or {@code shard2 /actuator/migrations}
 * @param code    MongoDB's error number (HostUnreachable 6 when the service did not answer)
 * @param codeName MongoDB's error name
 * @param message the cluster's {@code errmsg}
 */
public record ClusterError(String source, int code, String codeName, String message) {
    public ClusterError {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(codeName, "codeName");
        Objects.requireNonNull(message, "message");
    }

    /** {@code codeName (code): message}. */
    public String describe() {
        return codeName + " (" + code + "): " + message;
    }
}
