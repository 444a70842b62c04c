package dev.shardstore.shard;

import dev.shardstore.support.testing.MutableClock;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * Puts a {@link MutableClock} running with the system clock in place of the shard's system clock, so a test can skip
 * past a timeout (an idle cursor's) instead of waiting it out; the other tests of a shared context see real time.
 */
@TestConfiguration(proxyBeanMethods = false)
public class MovableShardClock {
    @Bean
    @Primary
    MutableClock movableClock() {
        return MutableClock.ofSystem();
    }
}
