package dev.shardstore.config.keys;

import dev.shardstore.contracts.clock.ClusterTimeSigner;
import dev.shardstore.contracts.clock.HmacClusterTimeSigner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The config service signs cluster times with the keys it owns (in place of the services' cache of them). */
@Configuration(proxyBeanMethods = false)
class KeysConfiguration {
    @Bean
    ClusterTimeSigner clusterTimeSigner(KeyManager keys) {
        return new HmacClusterTimeSigner(keys.keys());
    }
}
