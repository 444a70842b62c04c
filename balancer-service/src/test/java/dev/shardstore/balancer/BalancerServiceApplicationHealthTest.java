package dev.shardstore.balancer;

import dev.shardstore.support.testing.ServiceHealthContract;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Boots the service against the embedded Kafka broker (it owns no database) and checks its health report. */
class BalancerServiceApplicationHealthTest extends ServiceHealthContract {
    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        registerBroker(registry);
    }

    @Override
    protected boolean ownsDatabase() {
        return false;
    }
}
