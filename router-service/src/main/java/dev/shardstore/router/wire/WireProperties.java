package dev.shardstore.router.wire;

import java.time.Duration;
import java.util.Objects;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code shardstore.router.wire.*}: the MongoDB wire-protocol listener.
 *
 * @param enabled                 whether the router listens at all (REST is unaffected)
 * @param port                    TCP port; MongoDB's 27017 by default, 0 for any free port (tests)
 * @param bindAddress             the address to listen on; {@code 0.0.0.0} (every interface) like the REST port;
 *                                {@code shardstore.net.bind-ip} replaces it when given (the local cluster's 127.0.0.1)
 * @param maxConnections          open connections the listener keeps at once; one more is accepted and closed at once
 *                                (mongos' {@code net.maxIncomingConnections})
 * @param maxConnectionsPerClient open connections one client address may hold, so one misbehaving client cannot take
 *                                them all
 * @param idleTimeout             a connection whose next message has not arrived in full this long after the last
 *                                reply is closed; drivers' pooled connections must be reaped sooner
 *                                ({@code maxIdleTimeMS}) or their next use fails once
 */
@ConfigurationProperties("shardstore.router.wire")
public record WireProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("27017") int port,
        @DefaultValue("0.0.0.0") String bindAddress,
        @DefaultValue("10000") int maxConnections,
        @DefaultValue("1000") int maxConnectionsPerClient,
        @DefaultValue("30m") Duration idleTimeout) {
    public WireProperties {
        Objects.requireNonNull(bindAddress, "bindAddress");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("shardstore.router.wire.port must be 0..65535, was " + port);
        }
        if (maxConnections < 1 || maxConnectionsPerClient < 1) {
            throw new IllegalArgumentException("shardstore.router.wire.max-connections and max-connections-per-client must be at least 1");
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero() || idleTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("shardstore.router.wire.idle-timeout must be positive and at most "
                    + Integer.MAX_VALUE + " ms, was " + idleTimeout);
        }
    }
}
