package dev.shardstore.router.security;

import dev.shardstore.contracts.namespace.DatabaseNames;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.support.command.CommandHandler;
import org.bson.BsonDocument;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The user and role management commands on the router: forwarded to the config service, which runs them on
 * {@code admin.system.users} and {@code admin.system.roles} (as mongos forwards them to the config server; their shapes
 * and errors are the config service's {@code UserManagementCommands}). After a change this router reads the user
 * cache generation at once, so its own connections see the change on their next command and the localhost exception
 * closes with the first user; other routers see it within their poll interval ({@link UserDirectory}).
 */
@Configuration
public class UserManagementForwarding {

    @Bean
    CommandHandler createUserForwarded(ConfigServer config, UserDirectory directory) {
        return changing("createUser", config, directory);
    }

    @Bean
    CommandHandler updateUserForwarded(ConfigServer config, UserDirectory directory) {
        return changing("updateUser", config, directory);
    }

    @Bean
    CommandHandler dropUserForwarded(ConfigServer config, UserDirectory directory) {
        return changing("dropUser", config, directory);
    }

    @Bean
    CommandHandler dropAllUsersFromDatabaseForwarded(ConfigServer config, UserDirectory directory) {
        return changing("dropAllUsersFromDatabase", config, directory);
    }

    @Bean
    CommandHandler grantRolesToUserForwarded(ConfigServer config, UserDirectory directory) {
        return changing("grantRolesToUser", config, directory);
    }

    @Bean
    CommandHandler revokeRolesFromUserForwarded(ConfigServer config, UserDirectory directory) {
        return changing("revokeRolesFromUser", config, directory);
    }

    @Bean
    CommandHandler createRoleForwarded(ConfigServer config, UserDirectory directory) {
        return changing("createRole", config, directory);
    }

    @Bean
    CommandHandler updateRoleForwarded(ConfigServer config, UserDirectory directory) {
        return changing("updateRole", config, directory);
    }

    @Bean
    CommandHandler dropRoleForwarded(ConfigServer config, UserDirectory directory) {
        return changing("dropRole", config, directory);
    }

    @Bean
    CommandHandler grantPrivilegesToRoleForwarded(ConfigServer config, UserDirectory directory) {
        return changing("grantPrivilegesToRole", config, directory);
    }

    @Bean
    CommandHandler revokePrivilegesFromRoleForwarded(ConfigServer config, UserDirectory directory) {
        return changing("revokePrivilegesFromRole", config, directory);
    }

    @Bean
    CommandHandler usersInfoForwarded(ConfigServer config) {
        return CommandHandler.of("usersInfo", (db, cmd) -> forward(config, db, cmd));
    }

    @Bean
    CommandHandler rolesInfoForwarded(ConfigServer config) {
        return CommandHandler.of("rolesInfo", (db, cmd) -> forward(config, db, cmd));
    }

    /** A command that changes users or roles: forwarded, then this router's generation read again when it enforces. */
    private static CommandHandler changing(String name, ConfigServer config, UserDirectory directory) {
        return CommandHandler.of(name, (db, cmd) -> {
            BsonDocument reply = forward(config, db, cmd);
            if (directory.enforced()) {
                directory.refresh();
            }
            return reply;
        });
    }

    /**
     * Runs the command on the config service, on {@code db}.
     *
     * @throws dev.shardstore.contracts.error.CommandException InvalidNamespace (73) for a database name MongoDB refuses,
     *                                                         else the config service's error
     */
    private static BsonDocument forward(ConfigServer config, String db, BsonDocument cmd) {
        DatabaseNames.validate(db);
        return config.run(db, cmd);
    }
}
