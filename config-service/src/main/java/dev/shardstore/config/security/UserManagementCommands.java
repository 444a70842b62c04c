package dev.shardstore.config.security;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.command.CommandHandler;
import dev.shardstore.support.security.ActionType;
import dev.shardstore.support.security.BuiltinRoles;
import dev.shardstore.support.security.Privilege;
import dev.shardstore.support.security.RoleDefinition;
import dev.shardstore.support.security.RoleGraph;
import dev.shardstore.support.security.RoleName;
import dev.shardstore.support.security.ScramCredentials;
import dev.shardstore.support.security.ScramMechanism;
import dev.shardstore.support.security.UserName;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.UuidRepresentation;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The user and role management commands (MongoDB manual "User Management Commands", "Role Management Commands"),
 * run here on the catalog as a config server runs them for mongos; routers forward them. Shapes and errors are
 * MongoDB 7's:
 *
 * <ul>
 *   <li>{@code createUser: name, pwd, roles, customData?, mechanisms?} stores {@code {_id: "<db>.<name>", userId, user,
 *       db, credentials: {"SCRAM-SHA-1": {...}, "SCRAM-SHA-256": {...}}, roles, customData?}} (the password itself never);
 *       Location51003 "User "name@db" already exists".</li>
 *   <li>{@code updateUser: name, pwd?, roles?, customData?, mechanisms?}; {@code dropUser: name};
 *       {@code grantRolesToUser} / {@code revokeRolesFromUser: name, roles}: UserNotFound (11) "Could not find user
 *       "name@db"". {@code dropAllUsersFromDatabase: 1} answers {@code n}.</li>
 *   <li>{@code usersInfo: 1 | name | {user, db} | [...] | {forAllDBs: true}, showCredentials?, showPrivileges?} answers
 *       {@code users: [{_id, userId, user, db, roles, mechanisms, customData?, credentials?, inheritedRoles?,
 *       inheritedPrivileges?}]}.</li>
 *   <li>{@code createRole: name, privileges, roles} (Location51002 "Role "name@db" already exists"),
 *       {@code updateRole}, {@code dropRole} (also revoked from every user and role that held it),
 *       {@code grantPrivilegesToRole} / {@code revokePrivilegesFromRole: name, privileges}, {@code rolesInfo: 1 | name
 *       | {role, db} | [...], showPrivileges?, showBuiltinRoles?}.</li>
 *   <li>Every role a command names must exist, built in or user-defined: RoleNotFound (31) "Could not find role:
 *       name@db".</li>
 *   <li>{@code _getUserCacheGeneration} answers {@code cacheGeneration} (a number here, an ObjectId in MongoDB) and
 *       {@code anyUser}, polled by routers.</li>
 * </ul>
 */
@Configuration
public class UserManagementCommands {
    private static final List<ScramMechanism> ALL_MECHANISMS = List.of(ScramMechanism.SCRAM_SHA_1, ScramMechanism.SCRAM_SHA_256);

    @Bean
    CommandHandler createUser(UserCatalog catalog) {
        return CommandHandler.of("createUser", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            UserName name = new UserName(args.requiredString("createUser"), db);
            String password = args.requiredString("pwd");
            if (password.isEmpty()) {
                throw new CommandException(ErrorCode.BadValue, "Password cannot be empty");
            }
            List<RoleName> roles = existingRoles(catalog, RoleDefinition.roleNames(args.requiredArray("roles"), db));
            BsonDocument document = new BsonDocument("_id", new BsonString(name.id()))
                    .append("userId", new BsonBinary(UUID.randomUUID(), UuidRepresentation.STANDARD))
                    .append("user", new BsonString(name.user())).append("db", new BsonString(name.db()))
                    .append("credentials", credentials(name, password, mechanisms(cmd)))
                    .append("roles", RoleDefinition.roleArray(roles));
            if (cmd.isDocument("customData")) {
                document.append("customData", cmd.getDocument("customData"));
            }
            boolean created = catalog.change(() -> catalog.insertUser(name, document));
            if (!created) {
                throw new CommandException(ErrorCode.Location51003, "User \"" + name + "\" already exists");
            }
            return Replies.ok();
        });
    }

    @Bean
    CommandHandler updateUser(UserCatalog catalog) {
        return CommandHandler.of("updateUser", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            UserName name = new UserName(args.requiredString("updateUser"), db);
            List<RoleName> roles = cmd.containsKey("roles") ? existingRoles(catalog, RoleDefinition.roleNames(args.requiredArray("roles"), db)) : null;
            String password = cmd.containsKey("pwd") ? args.requiredString("pwd") : null;
            if (password == null && cmd.containsKey("mechanisms")) {
                throw new CommandException(ErrorCode.BadValue, "mechanisms field must not be set without a new password");
            }
            updateUserDocument(catalog, name, user -> {
                if (password != null) {
                    user.put("credentials", credentials(name, password, mechanisms(cmd)));
                }
                if (roles != null) {
                    user.put("roles", RoleDefinition.roleArray(roles));
                }
                if (cmd.isDocument("customData")) {
                    user.put("customData", cmd.getDocument("customData"));
                }
                return user;
            });
            return Replies.ok();
        });
    }

    @Bean
    CommandHandler grantRolesToUser(UserCatalog catalog) {
        return CommandHandler.of("grantRolesToUser", (db, cmd) -> changeUserRoles(catalog, db, cmd, "grantRolesToUser", (held, named) -> {
            Set<RoleName> all = new LinkedHashSet<>(held);
            all.addAll(existingRoles(catalog, named));
            return new ArrayList<>(all);
        }));
    }

    @Bean
    CommandHandler revokeRolesFromUser(UserCatalog catalog) {
        return CommandHandler.of("revokeRolesFromUser", (db, cmd) -> changeUserRoles(catalog, db, cmd, "revokeRolesFromUser", (held, named) -> {
            existingRoles(catalog, named);
            return held.stream().filter(r -> !named.contains(r)).toList();
        }));
    }

    @Bean
    CommandHandler dropUser(UserCatalog catalog) {
        return CommandHandler.of("dropUser", (db, cmd) -> {
            UserName name = new UserName(new CommandArgs(cmd).requiredString("dropUser"), db);
            if (!catalog.change(() -> catalog.deleteUser(name))) {
                throw userNotFound(name);
            }
            return Replies.ok();
        });
    }

    @Bean
    CommandHandler dropAllUsersFromDatabase(UserCatalog catalog) {
        return CommandHandler.of("dropAllUsersFromDatabase", (db, cmd) ->
                Replies.ok(new BsonDocument("n", new BsonInt32(catalog.change(() -> catalog.deleteUsers(db))))));
    }

    @Bean
    CommandHandler usersInfo(UserCatalog catalog) {
        return CommandHandler.of("usersInfo", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            boolean showCredentials = args.optionalBoolean(cmd, "showCredentials", "showCredentials", false);
            boolean showPrivileges = args.optionalBoolean(cmd, "showPrivileges", "showPrivileges", false);
            BsonValue selector = args.required(cmd, "usersInfo", "usersInfo");
            List<BsonDocument> found;
            if (selector.isNumber()) {
                found = catalog.users(db);
            } else if (selector.isDocument() && selector.asDocument().containsKey("forAllDBs")) {
                found = catalog.users(null);
            } else {
                found = new ArrayList<>();
                for (BsonValue one : selector.isArray() ? selector.asArray() : new BsonArray(List.of(selector))) {
                    catalog.user(userName(one, db)).ifPresent(found::add);
                }
            }
            BsonArray users = new BsonArray();
            for (BsonDocument user : found) {
                users.add(describeUser(catalog, user, showCredentials, showPrivileges));
            }
            return Replies.ok(new BsonDocument("users", users));
        });
    }

    @Bean
    CommandHandler createRole(UserCatalog catalog) {
        return CommandHandler.of("createRole", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            RoleName name = new RoleName(args.requiredString("createRole"), db);
            if (BuiltinRoles.NAMES.contains(name.role())) {
                throw new CommandException(ErrorCode.BadValue, "Cannot create roles with the same name as a built-in role");
            }
            RoleDefinition role = new RoleDefinition(name, privileges(args.requiredArray("privileges")),
                    existingRoles(catalog, RoleDefinition.roleNames(args.requiredArray("roles"), db)));
            if (!catalog.change(() -> catalog.insertRole(role))) {
                throw new CommandException(ErrorCode.Location51002, "Role \"" + name + "\" already exists");
            }
            return Replies.ok();
        });
    }

    @Bean
    CommandHandler updateRole(UserCatalog catalog) {
        return CommandHandler.of("updateRole", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            RoleName name = new RoleName(args.requiredString("updateRole"), db);
            changeRole(catalog, name, role -> new RoleDefinition(name,
                    cmd.containsKey("privileges") ? privileges(args.requiredArray("privileges")) : role.privileges(),
                    cmd.containsKey("roles") ? existingRoles(catalog, RoleDefinition.roleNames(args.requiredArray("roles"), db)) : role.roles()));
            return Replies.ok();
        });
    }

    @Bean
    CommandHandler grantPrivilegesToRole(UserCatalog catalog) {
        return CommandHandler.of("grantPrivilegesToRole", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            RoleName name = new RoleName(args.requiredString("grantPrivilegesToRole"), db);
            List<Privilege> granted = privileges(args.requiredArray("privileges"));
            changeRole(catalog, name, role -> {
                List<Privilege> all = new ArrayList<>(role.privileges());
                granted.stream().filter(p -> !all.contains(p)).forEach(all::add);
                return new RoleDefinition(name, all, role.roles());
            });
            return Replies.ok();
        });
    }

    @Bean
    CommandHandler revokePrivilegesFromRole(UserCatalog catalog) {
        return CommandHandler.of("revokePrivilegesFromRole", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            RoleName name = new RoleName(args.requiredString("revokePrivilegesFromRole"), db);
            List<Privilege> revoked = privileges(args.requiredArray("privileges"));
            changeRole(catalog, name, role -> new RoleDefinition(name, role.privileges().stream().map(p -> without(p, revoked))
                    .flatMap(Optional::stream).toList(), role.roles()));
            return Replies.ok();
        });
    }

    @Bean
    CommandHandler dropRole(UserCatalog catalog) {
        return CommandHandler.of("dropRole", (db, cmd) -> {
            RoleName name = new RoleName(new CommandArgs(cmd).requiredString("dropRole"), db);
            boolean dropped = catalog.change(() -> {
                if (!catalog.deleteRole(name)) {
                    return false;
                }
                for (BsonDocument user : catalog.users(null)) {
                    List<RoleName> held = RoleDefinition.roleNames(user.getArray("roles"), user.getString("db").getValue());
                    if (held.contains(name)) {
                        user.put("roles", RoleDefinition.roleArray(held.stream().filter(r -> !r.equals(name)).toList()));
                        catalog.replaceUser(new UserName(user.getString("user").getValue(), user.getString("db").getValue()), user);
                    }
                }
                for (RoleDefinition role : catalog.roles(null)) {
                    if (role.roles().contains(name)) {
                        catalog.replaceRole(new RoleDefinition(role.name(), role.privileges(),
                                role.roles().stream().filter(r -> !r.equals(name)).toList()));
                    }
                }
                return true;
            });
            if (!dropped) {
                throw RoleGraph.roleNotFound(name);
            }
            return Replies.ok();
        });
    }

    @Bean
    CommandHandler rolesInfo(UserCatalog catalog) {
        return CommandHandler.of("rolesInfo", (db, cmd) -> {
            CommandArgs args = new CommandArgs(cmd);
            boolean showPrivileges = args.optionalBoolean(cmd, "showPrivileges", "showPrivileges", false);
            boolean showBuiltin = args.optionalBoolean(cmd, "showBuiltinRoles", "showBuiltinRoles", false);
            BsonValue selector = args.required(cmd, "rolesInfo", "rolesInfo");
            List<RoleName> names = new ArrayList<>();
            if (selector.isNumber()) {
                catalog.roles(db).forEach(r -> names.add(r.name()));
                if (showBuiltin) {
                    BuiltinRoles.NAMES.stream().sorted().map(r -> new RoleName(r, db)).filter(BuiltinRoles::isBuiltin).forEach(names::add);
                }
            } else {
                for (BsonValue one : selector.isArray() ? selector.asArray() : new BsonArray(List.of(selector))) {
                    names.add(RoleName.parse(one, db));
                }
            }
            BsonArray roles = new BsonArray();
            for (RoleName name : names) {
                describeRole(catalog, name, showPrivileges).ifPresent(roles::add);
            }
            return Replies.ok(new BsonDocument("roles", roles));
        });
    }

    @Bean
    CommandHandler getUserCacheGeneration(UserCatalog catalog) {
        return CommandHandler.of("_getUserCacheGeneration", (db, cmd) -> Replies.ok(new BsonDocument("cacheGeneration",
                new BsonInt64(catalog.generation())).append("anyUser", BsonBoolean.valueOf(catalog.anyUser()))));
    }

    /** A user as {@code usersInfo} shows it. */
    private static BsonDocument describeUser(UserCatalog catalog, BsonDocument user, boolean showCredentials, boolean showPrivileges) {
        BsonDocument shown = new BsonDocument();
        for (String field : List.of("_id", "userId", "user", "db", "roles", "customData")) {
            if (user.containsKey(field)) {
                shown.append(field, user.get(field));
            }
        }
        BsonArray mechanisms = new BsonArray();
        user.getDocument("credentials").keySet().forEach(m -> mechanisms.add(new BsonString(m)));
        shown.append("mechanisms", mechanisms);
        if (showCredentials) {
            shown.append("credentials", user.getDocument("credentials"));
        }
        if (showPrivileges) {
            RoleGraph.Resolved resolved = RoleGraph.resolve(RoleDefinition.roleNames(user.getArray("roles"), user.getString("db").getValue()),
                    catalog::role);
            BsonArray privileges = new BsonArray();
            resolved.privileges().forEach(p -> privileges.add(p.toBson()));
            shown.append("inheritedRoles", RoleDefinition.roleArray(resolved.roles())).append("inheritedPrivileges", privileges);
        }
        return shown;
    }

    /** A role as {@code rolesInfo} shows it, if it exists. */
    private static Optional<BsonDocument> describeRole(UserCatalog catalog, RoleName name, boolean showPrivileges) {
        boolean builtin = BuiltinRoles.isBuiltin(name);
        Optional<RoleDefinition> defined = builtin ? Optional.empty() : catalog.role(name);
        if (!builtin && defined.isEmpty()) {
            return Optional.empty();
        }
        List<RoleName> direct = defined.map(RoleDefinition::roles).orElse(List.of());
        RoleGraph.Resolved resolved = RoleGraph.resolve(List.of(name), catalog::role);
        BsonDocument shown = new BsonDocument("role", new BsonString(name.role())).append("db", new BsonString(name.db()))
                .append("isBuiltin", BsonBoolean.valueOf(builtin)).append("roles", RoleDefinition.roleArray(direct))
                .append("inheritedRoles", RoleDefinition.roleArray(resolved.roles().subList(1, resolved.roles().size())));
        if (showPrivileges) {
            BsonArray own = new BsonArray();
            (builtin ? BuiltinRoles.privileges(name).orElseThrow() : defined.get().privileges()).forEach(p -> own.add(p.toBson()));
            BsonArray inherited = new BsonArray();
            resolved.privileges().forEach(p -> inherited.add(p.toBson()));
            shown.append("privileges", own).append("inheritedPrivileges", inherited);
        }
        return Optional.of(shown);
    }

    private static BsonDocument changeUserRoles(UserCatalog catalog, String db, BsonDocument cmd, String commandName,
            BiFunction<List<RoleName>, List<RoleName>, List<RoleName>> change) {
        CommandArgs args = new CommandArgs(cmd);
        UserName name = new UserName(args.requiredString(commandName), db);
        List<RoleName> named = RoleDefinition.roleNames(args.requiredArray("roles"), db);
        updateUserDocument(catalog, name, user -> {
            user.put("roles", RoleDefinition.roleArray(change.apply(RoleDefinition.roleNames(user.getArray("roles"), db), named)));
            return user;
        });
        return Replies.ok();
    }

    private static void updateUserDocument(UserCatalog catalog, UserName name, UnaryOperator<BsonDocument> change) {
        boolean updated = catalog.change(() -> catalog.user(name).map(user -> catalog.replaceUser(name, change.apply(user))).orElse(false));
        if (!updated) {
            throw userNotFound(name);
        }
    }

    private static void changeRole(UserCatalog catalog, RoleName name, UnaryOperator<RoleDefinition> change) {
        if (BuiltinRoles.isBuiltin(name)) {
            throw new CommandException(ErrorCode.BadValue, "Cannot modify built-in role: " + name);
        }
        boolean updated = catalog.change(() -> catalog.role(name).map(role -> catalog.replaceRole(change.apply(role))).orElse(false));
        if (!updated) {
            throw RoleGraph.roleNotFound(name);
        }
    }

    /** The roles, each checked to exist: RoleNotFound (31) otherwise. */
    private static List<RoleName> existingRoles(UserCatalog catalog, List<RoleName> roles) {
        for (RoleName role : roles) {
            if (!BuiltinRoles.isBuiltin(role) && catalog.role(role).isEmpty()) {
                throw RoleGraph.roleNotFound(role);
            }
        }
        return roles;
    }

    private static List<Privilege> privileges(BsonArray privileges) {
        return privileges.stream().map(Privilege::parse).toList();
    }

    /** {@code privilege} less the actions {@code revoked} names on its resource; empty when none is left. */
    private static Optional<Privilege> without(Privilege privilege, List<Privilege> revoked) {
        Set<ActionType> left = new HashSet<>(privilege.actions());
        revoked.stream().filter(r -> r.resource().equals(privilege.resource())).forEach(r -> left.removeAll(r.actions()));
        return left.isEmpty() ? Optional.empty() : Optional.of(new Privilege(privilege.resource(), left));
    }

    /** The SCRAM credentials of each mechanism asked for (both when {@code mechanisms} is absent). */
    private static BsonDocument credentials(UserName name, String password, List<ScramMechanism> mechanisms) {
        BsonDocument credentials = new BsonDocument();
        for (ScramMechanism mechanism : mechanisms) {
            credentials.append(mechanism.mechanismName(), ScramCredentials.create(mechanism, name.user(), password).toBson());
        }
        return credentials;
    }

    /**
     * {@code mechanisms}: a non-empty subset of SCRAM-SHA-1 and SCRAM-SHA-256, both when absent.
     *
     * @throws CommandException BadValue (2) for an unknown or empty list
     */
    private static List<ScramMechanism> mechanisms(BsonDocument cmd) {
        if (!cmd.containsKey("mechanisms")) {
            return ALL_MECHANISMS;
        }
        BsonArray names = new CommandArgs(cmd).requiredArray("mechanisms");
        List<ScramMechanism> mechanisms = new ArrayList<>();
        for (BsonValue name : names) {
            String mechanism = name.isString() ? name.asString().getValue() : name.toString();
            mechanisms.add(ScramMechanism.ofName(mechanism)
                    .orElseThrow(() -> new CommandException(ErrorCode.BadValue, "Unknown auth mechanism '" + mechanism + "'")));
        }
        if (mechanisms.isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "mechanisms field must not be empty");
        }
        return mechanisms.stream().distinct().toList();
    }

    private static UserName userName(BsonValue value, String db) {
        if (value.isString()) {
            return new UserName(value.asString().getValue(), db);
        }
        if (value.isDocument() && value.asDocument().isString("user") && value.asDocument().isString("db")) {
            return new UserName(value.asDocument().getString("user").getValue(), value.asDocument().getString("db").getValue());
        }
        throw new CommandException(ErrorCode.FailedToParse, "a user is a name or {user: <string>, db: <string>}, was " + value);
    }

    private static CommandException userNotFound(UserName name) {
        return new CommandException(ErrorCode.UserNotFound, "Could not find user \"" + name + "\"");
    }
}
