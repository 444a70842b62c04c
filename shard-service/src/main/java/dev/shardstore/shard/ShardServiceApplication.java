package dev.shardstore.shard;

import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The shard service (MongoDB's {@code mongod} in a sharded cluster): stores documents and the oplog
 * in its own PostgreSQL database, runs the query engine and checks the database version the router
 * attached to each command against the shard's filtering information (docs/architecture.md "Shard storage and the oplog", "Shard versioning and the stale-config retry loop").
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class ShardServiceApplication {
    /** The wall clock of the shard's timeouts (idle cursors); tests put a clock they move in its place. */
    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }

    /** Starts the shard; settings come from {@code application.yml}, environment variables and arguments. */
    public static void main(String[] args) {
        SpringApplication.run(ShardServiceApplication.class, args);
    }
}
