package dev.shardstore.router;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The router (mongos): no durable state; routes client commands to shards (docs/architecture.md "Services", "The life of a routed read"). */
@SpringBootApplication
@EnableScheduling
@ConfigurationPropertiesScan
public class RouterServiceApplication {
    public static void main(String[] args) {
        SpringApplication.run(RouterServiceApplication.class, args);
    }
}
