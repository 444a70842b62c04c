package dev.shardstore.resharding;

import dev.shardstore.support.testing.ServiceHealthContract;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Boots the service against real embedded PostgreSQL (its state documents) and Kafka and checks its health report. */
class ReshardingServiceApplicationHealthTest extends ServiceHealthContract {
    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        register(registry, "resharding_health_test");
    }
}
