package dev.shardstore.resharding;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The resharding coordinator: resharding operations and their state machine documents.
 * For now it boots, connects to its own PostgreSQL database and to Kafka, and reports health on
 * {@code /actuator/health}; its behaviour arrives with later issues.
 */
@SpringBootApplication
public class ReshardingServiceApplication {
    public static void main(String[] args) {
        SpringApplication.run(ReshardingServiceApplication.class, args);
    }
}
