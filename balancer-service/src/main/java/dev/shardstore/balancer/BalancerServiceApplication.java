package dev.shardstore.balancer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The balancer (the config primary's balancer thread in MongoDB): rounds every {@code shardstore.balancer.round-interval}
 * that read the catalog and the shards' data sizes ({@code cluster}), decide with the pure policy ({@code policy}) and
 * carry the decisions out through the config service ({@code round}); the balancer commands ({@code command}) and
 * {@code /actuator/balancer}.
 */
@SpringBootApplication
@EnableConfigurationProperties(BalancerProperties.class)
public class BalancerServiceApplication {
    public static void main(String[] args) {
        SpringApplication.run(BalancerServiceApplication.class, args);
    }
}
