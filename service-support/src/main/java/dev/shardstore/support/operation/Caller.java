package dev.shardstore.support.operation;

import java.util.Objects;

/**
 * Who an operation runs for. Today every front end is open, so a caller is known only by where its request came from;
 * the security work adds the authenticated user and roles here, and authorization reads them from the operation's
 * context.
 *
 * @param origin where the operation entered this process
 * @param name   a short description for logs: the front end ({@code "rest"}, {@code "wire"}, {@code "internal"}) or,
 *               for the process's own work, the task ({@code "rangeDeleter"}, {@code "migration"}, ...)
 */
public record Caller(Origin origin, String name) {
    /** Where an operation entered this process. */
    public enum Origin {
        /** A client of the cluster, through the router's REST or wire front end. */
        CLIENT,
        /** Another service of the cluster, through this service's internal command endpoint or command port. */
        PEER,
        /** This process's own background work (migration, range deletion, TTL, balancer rounds). */
        INTERNAL
    }

    public Caller {
        Objects.requireNonNull(origin, "origin");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a caller has a name");
        }
    }

    /** A client through the front end {@code frontEnd}. */
    public static Caller client(String frontEnd) {
        return new Caller(Origin.CLIENT, frontEnd);
    }

    /** A peer service through the internal command endpoint or command port. */
    public static Caller peer() {
        return new Caller(Origin.PEER, "internal");
    }

    /** This process's own work named {@code task}. */
    public static Caller internal(String task) {
        return new Caller(Origin.INTERNAL, task);
    }
}
