package dev.shardstore.support.health;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.kafka.core.KafkaAdmin;

/**
 * Health of the Kafka connection: UP with the broker count when {@code describeCluster} answers within
 * the timeout, DOWN otherwise. Spring Boot ships no Kafka indicator; docs/architecture.md "Observability" lists it.
 * Keeps one admin client open for the service's lifetime.
 */
public final class KafkaHealthIndicator implements HealthIndicator, AutoCloseable {
    private final AdminClient admin;
    private final Duration timeout;

    public KafkaHealthIndicator(KafkaAdmin kafkaAdmin, Duration timeout) {
        Map<String, Object> config = new java.util.HashMap<>(kafkaAdmin.getConfigurationProperties());
        int millis = (int) timeout.toMillis();
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
        this.admin = AdminClient.create(config);
        this.timeout = timeout;
    }

    @Override
    public Health health() {
        try {
            var cluster = admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()));
            int brokers = cluster.nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS).size();
            return Health.up().withDetail("brokers", brokers)
                    .withDetail("clusterId", cluster.clusterId().get(timeout.toMillis(), TimeUnit.MILLISECONDS)).build();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return Health.down(e).build();
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(1));
    }
}
