package dev.shardstore.session;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Logical sessions: the sessions collection with its TTL, refreshed and reaped by the logical session cache.
 * For now it boots, connects to its own PostgreSQL database and to Kafka, and reports health on
 * {@code /actuator/health}; its behaviour arrives with later issues.
 */
@SpringBootApplication
public class SessionServiceApplication {
    public static void main(String[] args) {
        SpringApplication.run(SessionServiceApplication.class, args);
    }
}
