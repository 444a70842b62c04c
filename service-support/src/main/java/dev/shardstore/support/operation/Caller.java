package dev.shardstore.support.operation;

import dev.shardstore.support.security.Principal;
import java.util.Objects;

/**
 * Who an operation runs for: where its request came from and, for a client, the {@link Principal} its connection
 * authenticated as, which {@link dev.shardstore.support.security.CommandAuthorizer} checks before the command runs
 * (docs/architecture.md "Security"). Peers and the process's own work are cluster members: {@link Principal#SYSTEM}.
 *
 * @param origin    where the operation entered this process
 * @param name      a short description for logs: the front end ({@code "rest"}, {@code "wire"}, {@code "internal"}) or,
 *                  for the process's own work, the task ({@code "rangeDeleter"}, {@code "migration"}, ...)
 * @param principal who the caller is authenticated as ({@link Principal#NONE} for a client that is not)
 */
public record Caller(Origin origin, String name, Principal principal) {
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
        Objects.requireNonNull(principal, "principal");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a caller has a name");
        }
        if (origin != Origin.CLIENT && principal != Principal.SYSTEM) {
            throw new IllegalArgumentException("peers and the process's own work run as cluster members (Principal.SYSTEM)");
        }
    }

    /** A caller of {@code origin}: an unauthenticated client, or a cluster member for the other origins. */
    public Caller(Origin origin, String name) {
        this(origin, name, origin == Origin.CLIENT ? Principal.NONE : Principal.SYSTEM);
    }

    /** An unauthenticated client through the front end {@code frontEnd}. */
    public static Caller client(String frontEnd) {
        return new Caller(Origin.CLIENT, frontEnd);
    }

    /** A client through the front end {@code frontEnd}, authenticated as {@code principal}. */
    public static Caller client(String frontEnd, Principal principal) {
        return new Caller(Origin.CLIENT, frontEnd, principal);
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
