package dev.shardstore.console;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The operator's web console (docs/architecture.md "The operator's console"): server-rendered pages that read the
 * cluster through the router's public command API and the services' Actuator endpoints, and nothing else.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class ConsoleApplication {
    public static void main(String[] args) {
        SpringApplication.run(ConsoleApplication.class, args);
    }
}
