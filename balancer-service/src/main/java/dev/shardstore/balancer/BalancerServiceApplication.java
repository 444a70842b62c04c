package dev.shardstore.balancer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The balancer (the config primary's balancer thread in MongoDB): split/move decisions, rounds and jumbo marking.
 * For now it boots, connects to its own PostgreSQL database and to Kafka, and reports health on
 * {@code /actuator/health}; its behaviour arrives with later issues.
 */
@SpringBootApplication
public class BalancerServiceApplication {
    public static void main(String[] args) {
        SpringApplication.run(BalancerServiceApplication.class, args);
    }
}
