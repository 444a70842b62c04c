package dev.shardstore.session;

import dev.shardstore.support.testing.ServiceHealthContract;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Boots the service against real embedded PostgreSQL and Kafka and checks its health report. */
class SessionServiceApplicationHealthTest extends ServiceHealthContract {
    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        register(registry, "sessions_health_test");
    }
}
