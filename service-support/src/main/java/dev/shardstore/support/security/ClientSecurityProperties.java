package dev.shardstore.support.security;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.security.*}, the client side (docs/architecture.md "Security").
 *
 * @param authorization                   {@code enabled}: clients authenticate (SCRAM on the wire, HTTP Basic or a
 *                                        bearer token on REST) and every command is checked ({@link CommandAuthorizer});
 *                                        {@code disabled} (default): everything is open, as MongoDB without
 *                                        {@code security.authorization}
 * @param userCacheInvalidationInterval   how often a router asks the config service whether users or roles changed
 *                                        (MongoDB's {@code userCacheInvalidationIntervalSecs}, 30 s there); a
 *                                        connection's privileges are resolved again once they did
 * @param tokenLifetime                   how long a REST bearer token from {@code POST /api/v1/auth/token} is valid
 */
@ConfigurationProperties("shardstore.security")
public record ClientSecurityProperties(
        @DefaultValue("disabled") Mode authorization,
        @DefaultValue("1s") Duration userCacheInvalidationInterval,
        @DefaultValue("1h") Duration tokenLifetime) {
    /** {@code security.authorization}'s two values. */
    public enum Mode { enabled, disabled }

    /** True when authorization is enforced. */
    public boolean enforced() {
        return authorization == Mode.enabled;
    }
}
