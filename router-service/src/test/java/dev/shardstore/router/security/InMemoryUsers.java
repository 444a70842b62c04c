package dev.shardstore.router.security;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.catalog.ConfigCommands;
import dev.shardstore.support.security.ClientSecurityProperties;
import dev.shardstore.support.security.Privilege;
import dev.shardstore.support.security.RoleDefinition;
import dev.shardstore.support.security.RoleGraph;
import dev.shardstore.support.security.ScramCredentials;
import dev.shardstore.support.security.ScramMechanism;
import dev.shardstore.support.security.UserName;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;

/**
 * A config service stub for the router's {@link UserDirectory}: answers {@code usersInfo} (with credentials, inherited
 * roles and privileges of built-in roles) and {@code _getUserCacheGeneration} from users kept in memory. The config
 * service's own commands are tested in config-service against PostgreSQL.
 */
final class InMemoryUsers implements ConfigCommands {
    private final Map<UserName, BsonDocument> users = new ConcurrentHashMap<>();
    private final AtomicLong generation = new AtomicLong(1);

    /** A directory over these users with authorization on; its generation is read once now. */
    UserDirectory directory() {
        UserDirectory directory = new UserDirectory(this,
                new ClientSecurityProperties(ClientSecurityProperties.Mode.enabled, Duration.ofHours(1), Duration.ofHours(1)));
        directory.refresh();
        return directory;
    }

    /** Adds (or replaces) user {@code name} on {@code admin} with SCRAM-SHA-256 credentials and one built-in role. */
    void add(String name, String password, String role, String roleDb) {
        UserName user = new UserName(name, "admin");
        users.put(user, new BsonDocument("_id", new BsonString(user.id())).append("user", new BsonString(name)).append("db", new BsonString("admin"))
                .append("credentials", new BsonDocument("SCRAM-SHA-256", ScramCredentials.create(ScramMechanism.SCRAM_SHA_256, name, password).toBson()))
                .append("roles", new BsonArray(List.of(new BsonDocument("role", new BsonString(role)).append("db", new BsonString(roleDb))))));
        generation.incrementAndGet();
    }

    @Override
    public BsonDocument run(BsonDocument command) {
        return switch (command.getFirstKey()) {
            case "_getUserCacheGeneration" -> Replies.ok(new BsonDocument("cacheGeneration", new BsonInt64(generation.get()))
                    .append("anyUser", BsonBoolean.valueOf(!users.isEmpty())));
            case "usersInfo" -> {
                BsonDocument name = command.getDocument("usersInfo");
                BsonDocument user = users.get(new UserName(name.getString("user").getValue(), name.getString("db").getValue()));
                BsonArray found = new BsonArray();
                if (user != null) {
                    BsonDocument shown = user.clone();
                    shown.append("mechanisms", new BsonArray(user.getDocument("credentials").keySet().stream().map(BsonString::new).toList()));
                    RoleGraph.Resolved resolved = RoleGraph.resolve(RoleDefinition.roleNames(user.getArray("roles"), "admin"), r -> Optional.empty());
                    shown.append("inheritedRoles", RoleDefinition.roleArray(resolved.roles()))
                            .append("inheritedPrivileges", new BsonArray(resolved.privileges().stream().map(Privilege::toBson).toList()));
                    found.add(shown);
                }
                yield Replies.ok(new BsonDocument("users", found));
            }
            default -> throw new CommandException(ErrorCode.CommandNotFound, command.getFirstKey());
        };
    }
}
