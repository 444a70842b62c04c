package dev.shardstore.resharding;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The resharding coordinator: resharding operations and their state machine documents.
 * For now it boots, connects to Kafka and reports health on {@code /actuator/health}; its behaviour (and the
 * PostgreSQL database its state will need) arrives with later issues.
 */
@SpringBootApplication
public class ReshardingServiceApplication {
    public static void main(String[] args) {
        SpringApplication.run(ReshardingServiceApplication.class, args);
    }
}
