package dev.shardstore.support.security;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Resolves roles to everything they grant: the roles they inherit, transitively, and all their privileges (MongoDB's
 * {@code inheritedRoles} and {@code inheritedPrivileges}). Built-in roles come from {@link BuiltinRoles}, user-defined
 * ones from a lookup over {@code admin.system.roles}.
 */
public final class RoleGraph {
    /**
     * What a set of roles grants.
     *
     * @param roles      every role, the given ones first, then inherited ones in breadth-first order
     * @param privileges every privilege of those roles
     */
    public record Resolved(List<RoleName> roles, List<Privilege> privileges) {
        public Resolved {
            roles = List.copyOf(roles);
            privileges = List.copyOf(privileges);
        }
    }

    private RoleGraph() {}

    /**
     * Resolves {@code direct}; a role inheriting itself (a cycle) is visited once.
     *
     * @param userDefined the user-defined role of a name, if it exists
     * @throws CommandException RoleNotFound (31) "Could not find role: name@db" for a role that exists neither way
     */
    public static Resolved resolve(Collection<RoleName> direct, Function<RoleName, Optional<RoleDefinition>> userDefined) {
        Set<RoleName> seen = new LinkedHashSet<>();
        List<Privilege> privileges = new ArrayList<>();
        Deque<RoleName> pending = new ArrayDeque<>(direct);
        while (!pending.isEmpty()) {
            RoleName role = pending.removeFirst();
            if (!seen.add(role)) {
                continue;
            }
            Optional<List<Privilege>> builtin = BuiltinRoles.privileges(role);
            if (builtin.isPresent()) {
                privileges.addAll(builtin.get());
                continue;
            }
            RoleDefinition definition = userDefined.apply(role).orElseThrow(() -> roleNotFound(role));
            privileges.addAll(definition.privileges());
            pending.addAll(definition.roles());
        }
        return new Resolved(new ArrayList<>(seen), privileges);
    }

    /** RoleNotFound (31), MongoDB's "Could not find role: name@db". */
    public static CommandException roleNotFound(RoleName role) {
        return new CommandException(ErrorCode.RoleNotFound, "Could not find role: " + role);
    }
}
