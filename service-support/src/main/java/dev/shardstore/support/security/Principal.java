package dev.shardstore.support.security;

import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;

/**
 * Who a client connection is authenticated as, with the privileges its users' roles grant, resolved once when it
 * authenticated and kept by the connection (MongoDB's {@code AuthorizationSession}), so that checking a command reads
 * nothing: {@link #isAuthorized} walks the few privileges in memory. Immutable; a connection replaces its principal
 * when it authenticates, logs out, or the users or roles change ({@link #generation}).
 *
 * @param users      the authenticated users (empty: nobody)
 * @param roles      every role the users hold, directly or inherited
 * @param privileges every privilege of those roles
 * @param kind       an ordinary principal, the localhost exception or a cluster member
 * @param generation the user cache generation the privileges were resolved at ({@code _getUserCacheGeneration}), 0
 *                   for principals that do not depend on it
 */
public record Principal(List<UserName> users, List<RoleName> roles, List<Privilege> privileges, Kind kind, long generation) {
    /** What sort of principal this is. */
    public enum Kind {
        /** Authenticated users, or nobody. */
        USERS,
        /**
         * An unauthenticated connection from a loopback address while no user exists (MongoDB's localhost exception):
         * it may create the first user, nothing else.
         */
        LOCALHOST_EXCEPTION,
        /** A cluster member or the process itself: MongoDB's {@code __system} role. */
        SYSTEM
    }

    /** Nobody authenticated. */
    public static final Principal NONE = new Principal(List.of(), List.of(), List.of(), Kind.USERS, 0);
    /** A cluster member ({@code Caller.peer()}) or the process's own work: holds {@code __system}. */
    public static final Principal SYSTEM = new Principal(List.of(), List.of(new RoleName("__system", "admin")),
            BuiltinRoles.privileges(new RoleName("__system", "admin")).orElseThrow(), Kind.SYSTEM, 0);
    /** The localhost exception: may run {@code createUser} on any database and the commands that need no privilege. */
    public static final Principal LOCALHOST_EXCEPTION = new Principal(List.of(), List.of(),
            List.of(Privilege.of(Resource.ANY_NORMAL, ActionType.createUser)), Kind.LOCALHOST_EXCEPTION, 0);

    public Principal {
        users = List.copyOf(users);
        roles = List.copyOf(roles);
        privileges = List.copyOf(privileges);
        Objects.requireNonNull(kind, "kind");
    }

    /** True when some user is authenticated (or a cluster member). */
    public boolean authenticated() {
        return !users.isEmpty() || kind == Kind.SYSTEM;
    }

    /** True when one of the privileges allows {@code action} on {@code target}. */
    public boolean isAuthorized(Resource target, ActionType action) {
        for (Privilege privilege : privileges) {
            if (privilege.actions().contains(action) && privilege.resource().covers(target)) {
                return true;
            }
        }
        return false;
    }

    /** True when some privilege reaches database {@code db} or a collection in it ({@link Resource#reaches}). */
    public boolean hasPrivilegeIn(String db) {
        return kind == Kind.SYSTEM || privileges.stream().anyMatch(privilege -> privilege.resource().reaches(db));
    }

    /** {@code connectionStatus}'s {@code authInfo}: users and roles, and the privileges when {@code showPrivileges}. */
    public BsonDocument authInfo(boolean showPrivileges) {
        BsonArray userDocs = new BsonArray();
        users.forEach(u -> userDocs.add(u.toBson()));
        BsonArray roleDocs = new BsonArray();
        roles.forEach(r -> roleDocs.add(r.toBson()));
        BsonDocument authInfo = new BsonDocument("authenticatedUsers", userDocs).append("authenticatedUserRoles", roleDocs);
        if (showPrivileges) {
            BsonArray privilegeDocs = new BsonArray();
            privileges.forEach(p -> privilegeDocs.add(p.toBson()));
            authInfo.append("authenticatedUserPrivileges", privilegeDocs);
        }
        return authInfo;
    }
}
