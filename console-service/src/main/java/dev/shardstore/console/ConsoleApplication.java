package dev.shardstore.console;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import java.time.Clock;

/**
 * The operator's web console (docs/architecture.md "The operator's console"): server-rendered pages that read the
 * cluster through the router's public command API and the services' Actuator endpoints, and nothing else.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class ConsoleApplication {
    /** The console's clock: the meters' sample times and the router token's expiry; tests inject their own. */
    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }

    public static void main(String[] args) {
        SpringApplication.run(ConsoleApplication.class, args);
    }
}
