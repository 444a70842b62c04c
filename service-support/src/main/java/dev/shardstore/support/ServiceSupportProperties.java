package dev.shardstore.support;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings shared by every service ({@code shardstore.*}).
 *
 * @param configUrl           base URL of the config service (peers call it); default the local cluster's
 * @param peerConnectTimeout  TCP connect timeout for service-to-service calls
 * @param peerRequestTimeout  whole-reply timeout for service-to-service calls
 * @param kafkaHealthTimeout  how long the Kafka health check waits for the broker
 * @param testCommands        {@code shardstore.test-commands.*}
 * @param maxAcceptableLogicalClockDriftSecs how far (seconds) ahead of the wall clock gossip may move the
 *                            process's cluster time; MongoDB's parameter of that name, default one year
 * @param commandPort         {@code shardstore.command-port.*}: the wire-protocol port for service-to-service commands
 */
@ConfigurationProperties("shardstore")
public record ServiceSupportProperties(
        @DefaultValue("http://localhost:8081") String configUrl,
        @DefaultValue("2s") Duration peerConnectTimeout,
        @DefaultValue("30s") Duration peerRequestTimeout,
        @DefaultValue("3s") Duration kafkaHealthTimeout,
        @DefaultValue TestCommands testCommands,
        @DefaultValue("31536000") long maxAcceptableLogicalClockDriftSecs,
        @DefaultValue CommandPort commandPort) {

    /**
     * {@code shardstore.test-commands.*}.
     *
     * @param enabled whether the test-only commands ({@code configureFailPoint}, {@code waitForFailPoint}) are
     *                registered, as MongoDB's {@code enableTestCommands}; off by default, on in fault tests
     */
    public record TestCommands(@DefaultValue("false") boolean enabled) {}

    /**
     * {@code shardstore.command-port.*} ({@link dev.shardstore.support.command.InternalCommandPort}).
     *
     * @param enabled whether the service takes peer commands as OP_MSG on a port of its own besides HTTP
     * @param port    that port; -1 (default) for the HTTP port + 20000, 0 for any free port
     */
    public record CommandPort(@DefaultValue("true") boolean enabled, @DefaultValue("-1") int port) {}
}
