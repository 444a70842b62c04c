package dev.shardstore.session;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Logical sessions (mongo/src/mongo/db/s/README.md "Logical Sessions"): owns the sessions collection ({@code config.system.sessions},
 * table {@code system_sessions}) that every node's logical session cache refreshes, and deletes the sessions idle longer
 * than {@code localLogicalSessionTimeoutMinutes} (the TTL of MongoDB's index on {@code lastUse}).
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class SessionServiceApplication {
    public static void main(String[] args) {
        SpringApplication.run(SessionServiceApplication.class, args);
    }
}
