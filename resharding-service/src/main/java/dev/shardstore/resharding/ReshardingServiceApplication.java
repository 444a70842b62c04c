package dev.shardstore.resharding;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The resharding coordinator (MongoDB's {@code ReshardingCoordinatorService}, which runs on the config server's
 * primary): the state machine of each {@code reshardCollection} ({@code coordinator}), its state documents in this
 * service's PostgreSQL database (table {@code resharding_operations}, MongoDB's {@code config.reshardingOperations}), the
 * commands the config service and the routers send it ({@code command}) and {@code /actuator/resharding}.
 */
@SpringBootApplication
@EnableScheduling
@EnableConfigurationProperties(ReshardingProperties.class)
public class ReshardingServiceApplication {
    public static void main(String[] args) {
        SpringApplication.run(ReshardingServiceApplication.class, args);
    }
}
