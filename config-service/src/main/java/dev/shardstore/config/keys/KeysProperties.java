package dev.shardstore.config.keys;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.keys.*}: cluster time signing keys (mongo/src/mongo/db/s/README.md "Key management").
 *
 * @param rotationInterval how long each key signs (MongoDB's {@code KeysRotationIntervalSec}, 3 months); a new key is
 *                         made whenever the newest one expires within this interval, so one key is always valid for
 *                         the next interval
 * @param checkInterval    how often the config service checks whether a new key is due
 */
@ConfigurationProperties("shardstore.keys")
public record KeysProperties(@DefaultValue("90d") Duration rotationInterval, @DefaultValue("1m") Duration checkInterval) {
    public KeysProperties {
        if (rotationInterval.toSeconds() < 1 || checkInterval.isNegative() || checkInterval.isZero()) {
            throw new IllegalArgumentException("shardstore.keys.rotation-interval must be at least 1s and check-interval positive");
        }
    }
}
