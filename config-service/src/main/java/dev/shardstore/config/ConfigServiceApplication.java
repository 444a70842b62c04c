package dev.shardstore.config;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The config server: owns the authoritative catalog (docs/architecture.md "Services", "The catalog on the config service"). */
@SpringBootApplication
@EnableScheduling
@ConfigurationPropertiesScan
public class ConfigServiceApplication {
    public static void main(String[] args) {
        SpringApplication.run(ConfigServiceApplication.class, args);
    }
}
