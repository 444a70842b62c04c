package dev.shardstore.support;

import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.contracts.clock.ClusterTimeSigner;
import dev.shardstore.contracts.clock.HmacClusterTimeSigner;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.support.clock.SigningKeyCache;
import dev.shardstore.support.command.CommandHandler;
import dev.shardstore.support.command.CommandRegistry;
import dev.shardstore.support.operation.OperationRegistry;
import dev.shardstore.support.command.InternalCommandPort;
import dev.shardstore.support.command.InternalCommandServlet;
import dev.shardstore.support.command.InternalCommands;
import dev.shardstore.support.security.ClientSecurityProperties;
import dev.shardstore.support.security.CommandAuthorizer;
import dev.shardstore.support.parameter.ServerParameters;
import dev.shardstore.support.membership.MembershipProperties;
import dev.shardstore.support.membership.NetProperties;
import dev.shardstore.transport.membership.ClusterKey;
import dev.shardstore.transport.membership.MemberToken;
import dev.shardstore.contracts.bson.BsonLimits;
import dev.shardstore.support.session.LogicalSessionCache;
import dev.shardstore.support.session.LogicalSessionCacheProperties;
import dev.shardstore.transport.http.BsonDocumentHttpMessageConverter;
import dev.shardstore.transport.http.CommandClient;
import java.net.InetAddress;
import java.time.Clock;
import org.apache.catalina.connector.Connector;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.tomcat.TomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import dev.shardstore.support.health.KafkaHealthIndicator;
import dev.shardstore.support.failpoint.FailPointCommands;
import dev.shardstore.support.failpoint.FailPoints;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Wires what every service shares: BSON/Extended JSON bodies ahead of Jackson (a {@code BsonDocument}
 * is a {@code Map} Jackson would mangle), the process's one {@link LogicalClock} and its {@link ClusterTimeGossip},
 * the peer {@link CommandClient} (which gossips cluster time), the Kafka health indicator,
 * and — when the service defines {@link CommandHandler} beans — the {@link CommandRegistry} and the
 * internal command endpoint. With {@code shardstore.security.cluster-key-file}, the process's {@link ClusterKey}: its
 * peer client proves membership with it and its internal endpoints take members only (docs/architecture.md "Security").
 */
@AutoConfiguration(afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@EnableConfigurationProperties({ServiceSupportProperties.class, LogicalSessionCacheProperties.class, MembershipProperties.class,
        NetProperties.class, ClientSecurityProperties.class})
public class ServiceSupportAutoConfiguration {

    @Bean
    WebMvcConfigurer bsonDocumentMessageConverter() {
        return new WebMvcConfigurer() {
            @Override
            public void configureMessageConverters(HttpMessageConverters.ServerBuilder builder) {
                builder.addCustomConverter(new BsonDocumentHttpMessageConverter());
            }
        };
    }

    /**
     * The process's server parameters ({@link ServerParameters}), at their defaults overridden by
     * {@code shardstore.set-parameter.<name>=<value>}; an unknown name or a bad value fails the start.
     */
    @Bean
    @ConditionalOnMissingBean
    ServerParameters serverParameters(Environment environment) {
        return new ServerParameters(Binder.get(environment)
                .bind(ServerParameters.PROPERTY_PREFIX, Bindable.mapOf(String.class, String.class)).orElse(Map.of()));
    }

    /** The process's hybrid logical clock: one per process, every component takes its cluster time from it. */
    @Bean
    @ConditionalOnMissingBean
    LogicalClock logicalClock(ServiceSupportProperties properties) {
        return new LogicalClock(Duration.ofSeconds(properties.maxAcceptableLogicalClockDriftSecs()));
    }

    /**
     * Signs and checks cluster times with the config service's keys, cached here ({@link SigningKeyCache}); the config
     * service, which owns the keys, defines its own.
     */
    @Bean
    @ConditionalOnMissingBean
    ClusterTimeSigner clusterTimeSigner(ObjectProvider<CommandClient> client, ServiceSupportProperties properties) {
        return new HmacClusterTimeSigner(new SigningKeyCache(client::getObject, properties.configUrl(), Duration.ofSeconds(1)));
    }

    @Bean
    @ConditionalOnMissingBean
    ClusterTimeGossip clusterTimeGossip(LogicalClock clock, ClusterTimeSigner signer, ObjectProvider<ClusterKey> clusterKey) {
        return new ClusterTimeGossip(clock, signer, clusterKey.getIfAvailable() != null);
    }

    /** The cluster's key, where {@code shardstore.security.cluster-key-file} names its file. */
    @Bean
    @ConditionalOnProperty(name = "shardstore.security.cluster-key-file")
    ClusterKey clusterKey(MembershipProperties properties) {
        return Objects.requireNonNull(properties.clusterKey(), "clusterKey");
    }

    @Bean
    @ConditionalOnMissingBean
    CommandClient commandClient(ServiceSupportProperties properties, ClusterTimeGossip gossip, ObjectProvider<ClusterKey> clusterKey) {
        return new CommandClient(properties.peerConnectTimeout(), properties.peerRequestTimeout(), gossip, clusterKey.getIfAvailable());
    }

    /** The node's logical session cache, where {@code shardstore.sessions.cache.enabled} is true (routers, shards). */
    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(name = "shardstore.sessions.cache.enabled", havingValue = "true")
    LogicalSessionCache logicalSessionCache(CommandClient client, LogicalSessionCacheProperties properties) {
        return new LogicalSessionCache(client, properties, Clock.systemUTC());
    }

    @Bean(name = "kafkaHealthIndicator")
    @ConditionalOnBean(KafkaAdmin.class)
    KafkaHealthIndicator kafkaHealthIndicator(KafkaAdmin kafkaAdmin, ServiceSupportProperties properties) {
        return new KafkaHealthIndicator(kafkaAdmin, properties.kafkaHealthTimeout());
    }

    @Bean
    @ConditionalOnMissingBean
    FailPoints failPoints() {
        return new FailPoints();
    }

    /** The commands running in this service ({@code $currentOp}, {@code killOp}), timed on {@link System#nanoTime}. */
    @Bean
    @ConditionalOnMissingBean
    OperationRegistry operationRegistry() {
        return new OperationRegistry(System::nanoTime);
    }

    /**
     * The registry of the service's command handlers, plus MongoDB's fail point test commands when
     * {@code shardstore.test-commands.enabled} is true (as {@code enableTestCommands} adds them to mongod/mongos).
     */
    @Bean
    @ConditionalOnBean(CommandHandler.class)
    CommandRegistry commandRegistry(List<CommandHandler> handlers, FailPoints failPoints, ServiceSupportProperties properties,
            ClientSecurityProperties security, OperationRegistry operations) {
        List<CommandHandler> all = new ArrayList<>(handlers);
        if (properties.testCommands().enabled()) {
            all.addAll(FailPointCommands.over(failPoints));
        }
        return new CommandRegistry(all, CommandAuthorizer.of(security.enforced()), operations);
    }

    /**
     * Tomcat on the service's bind addresses ({@code shardstore.net.bind-ip}, MongoDB's {@code net.bindIp}) when given:
     * the first is {@code server.address}, each other one gets a connector of its own on the same port. Without them,
     * {@code server.address} (every interface by default) as before.
     */
    @Bean
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    WebServerFactoryCustomizer<TomcatWebServerFactory> bindAddresses(NetProperties net) {
        return factory -> {
            List<InetAddress> addresses = net.addresses();
            if (addresses.isEmpty()) {
                return;
            }
            factory.setAddress(addresses.getFirst());
            for (InetAddress address : addresses.subList(1, addresses.size())) {
                Connector connector = new Connector();
                connector.setPort(factory.getPort());
                connector.setProperty("address", address.getHostAddress());
                factory.addAdditionalConnectors(connector);
            }
        };
    }

    /** Runs peer commands for both transports: the HTTP servlet and the OP_MSG command port. */
    @Bean
    @ConditionalOnBean(CommandHandler.class)
    InternalCommands internalCommands(CommandRegistry registry, ClusterTimeGossip gossip) {
        return new InternalCommands(registry, gossip);
    }

    @Bean
    @ConditionalOnBean(CommandHandler.class)
    InternalCommandPort internalCommandPort(InternalCommands commands, ServiceSupportProperties properties, ObjectProvider<ClusterKey> clusterKey,
            NetProperties net) {
        return new InternalCommandPort(commands, properties.commandPort(), clusterKey.getIfAvailable(), net.addresses());
    }

    @Bean
    @ConditionalOnBean(CommandHandler.class)
    ServletRegistrationBean<InternalCommandServlet> internalCommandServlet(InternalCommands commands, InternalCommandPort commandPort,
            ObjectProvider<ClusterKey> clusterKey) {
        ClusterKey key = clusterKey.getIfAvailable();
        MemberToken members = key == null ? null : new MemberToken(key, Clock.systemUTC());
        ServletRegistrationBean<InternalCommandServlet> registration = new ServletRegistrationBean<>(
                new InternalCommandServlet(commands, commandPort, members, BsonLimits.MAX_MESSAGE_SIZE), InternalCommandServlet.MAPPING);
        registration.setLoadOnStartup(1);
        return registration;
    }
}
