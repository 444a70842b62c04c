package dev.shardstore.router.security;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.support.catalog.ConfigCommands;
import dev.shardstore.support.security.ClientSecurityProperties;
import dev.shardstore.support.security.Principal;
import dev.shardstore.support.security.Privilege;
import dev.shardstore.support.security.RoleName;
import dev.shardstore.support.security.ScramCredentials;
import dev.shardstore.support.security.ScramMechanism;
import dev.shardstore.support.security.UserName;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The router's view of {@code admin.system.users} and {@code admin.system.roles}, which the config service owns
 * (docs/architecture.md "Security"), read as mongos reads them: {@code usersInfo} with {@code showCredentials} when a
 * client authenticates, with {@code showPrivileges} to resolve its principal.
 *
 * <p>Freshness: credentials are read from the config service at every authentication, never cached, so a password
 * change or a dropped user takes effect at once for new authentications on every router. Connections cache their
 * principal; it is resolved again once the user cache generation moved on (MongoDB's versioning: mongos polls the
 * config server's {@code _getUserCacheGeneration} every {@code userCacheInvalidationIntervalSecs}), polled every
 * {@link ClientSecurityProperties#userCacheInvalidationInterval()} and at once after a user command on this router. The
 * directory caches each user's principal the same way, for the REST API's requests, which have no connection to keep
 * it: one {@code usersInfo} per user and generation, not one per request (issue 39's goal: authorization is not
 * re-read per command). The same poll tells whether any user exists (the localhost exception). Nothing is polled while authorization is off.
 */
@Component
public class UserDirectory implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(UserDirectory.class);

    private final ConfigCommands config;
    private final ClientSecurityProperties properties;
    private volatile long generation = -1;
    private volatile boolean anyUser = true;
    private volatile @Nullable ScheduledExecutorService poller;
    /** Each user's principal as last resolved, at the generation of its {@link Principal#generation()}. */
    private final Map<UserName, Principal> principals = new ConcurrentHashMap<>();

    /** The router's directory, over its config service. */
    @Autowired
    public UserDirectory(ConfigServer config, ClientSecurityProperties properties) {
        this(command -> config.run("admin", command), properties);
    }

    /** A directory that runs its {@code usersInfo} and {@code _getUserCacheGeneration} through {@code config}. */
    public UserDirectory(ConfigCommands config, ClientSecurityProperties properties) {
        this.config = config;
        this.properties = properties;
    }

    /** True when authorization is enforced on this router. */
    public boolean enforced() {
        return properties.enforced();
    }

    /** The user cache generation last seen (-1 before the first poll). */
    public long generation() {
        return generation;
    }

    /** True unless the config service said no user exists: the localhost exception is open only then. */
    public boolean anyUser() {
        return anyUser;
    }

    /**
     * Reads the generation and whether any user exists now (after a user command on this router, and every interval).
     *
     * @throws CommandException the config service's failure; InternalError (1) for a reply without those fields
     */
    public void refresh() {
        BsonDocument reply = config.run(new BsonDocument("_getUserCacheGeneration", new BsonInt32(1)));
        if (!reply.isBoolean("anyUser") || !reply.isNumber("cacheGeneration")) {
            throw new CommandException(ErrorCode.InternalError, "the config service answered _getUserCacheGeneration with " + reply.toJson());
        }
        anyUser = reply.getBoolean("anyUser").getValue();
        generation = reply.getNumber("cacheGeneration").longValue();
    }

    /**
     * The user's stored credentials for {@code mechanism}, read from the config service now.
     *
     * @return empty when the user does not exist or has no credentials for it
     * @throws CommandException the config service's failure (HostUnreachable...)
     */
    public Optional<ScramCredentials> credentials(UserName user, ScramMechanism mechanism) {
        return user(user, "showCredentials").map(u -> u.getDocument("credentials", new BsonDocument()))
                .filter(c -> c.isDocument(mechanism.mechanismName()))
                .map(c -> ScramCredentials.parse(mechanism, c.getDocument(mechanism.mechanismName())));
    }

    /** The mechanisms the user has credentials for ({@code hello}'s {@code saslSupportedMechs}); empty for an unknown user. */
    public Optional<BsonArray> mechanisms(UserName user) {
        return user(user, "showCredentials").map(u -> u.getArray("mechanisms", new BsonArray()));
    }

    /**
     * The principal of {@code user}: its roles and privileges as the config service resolves them at the current
     * generation (cached until the generation moves on); {@link Principal#NONE} once the user no longer exists.
     */
    public Principal principal(UserName user) {
        long at = generation;
        Principal cached = principals.get(user);
        if (cached != null && cached.generation() == at && at >= 0) {
            return cached;
        }
        Optional<BsonDocument> found = user(user, "showPrivileges");
        if (found.isEmpty()) {
            principals.remove(user);
            return Principal.NONE;
        }
        List<RoleName> roles = found.get().getArray("inheritedRoles").stream().map(r -> RoleName.parse(r, user.db())).toList();
        List<Privilege> privileges = found.get().getArray("inheritedPrivileges").stream().map(Privilege::parse).toList();
        Principal resolved = new Principal(List.of(user), roles, privileges, Principal.Kind.USERS, at);
        principals.put(user, resolved);
        return resolved;
    }

    private Optional<BsonDocument> user(UserName user, String show) {
        BsonDocument command = new BsonDocument("usersInfo", user.toBson()).append(show, BsonBoolean.TRUE);
        BsonArray users = config.run(command).getArray("users");
        return users.isEmpty() ? Optional.empty() : Optional.of(users.get(0).asDocument());
    }

    @Override
    public synchronized void start() {
        if (!properties.enforced() || poller != null) {
            return;
        }
        ScheduledExecutorService poll = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("user-cache-poll").factory());
        long every = properties.userCacheInvalidationInterval().toMillis();
        poll.scheduleWithFixedDelay(this::refreshQuietly, 0, every, TimeUnit.MILLISECONDS);
        poller = poll;
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            log.debug("reading the user cache generation failed: {}", e.toString());
        }
    }

    @Override
    public synchronized void stop() {
        ScheduledExecutorService poll = poller;
        poller = null;
        if (poll != null) {
            poll.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return poller != null;
    }
}
