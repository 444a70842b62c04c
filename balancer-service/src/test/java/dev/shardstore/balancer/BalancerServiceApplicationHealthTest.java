package dev.shardstore.balancer;

import dev.shardstore.support.testing.ServiceHealthContract;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Boots the service against real embedded PostgreSQL and Kafka and checks its health report. */
class BalancerServiceApplicationHealthTest extends ServiceHealthContract {
    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        register(registry, "balancer_health_test");
    }
}
