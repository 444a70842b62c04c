package dev.shardstore.balancer;

import dev.shardstore.balancer.cluster.PeerCommands;
import dev.shardstore.transport.http.CommandClient;
import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The balancer (the config primary's balancer thread in MongoDB): rounds every {@code shardstore.balancer.round-interval}
 * that read the catalog and the shards' data sizes ({@code cluster}), decide with the pure policy ({@code policy}) and
 * carry the decisions out through the config service ({@code round}); the balancer commands ({@code command}) and
 * {@code /actuator/balancer}.
 */
@SpringBootApplication
@EnableConfigurationProperties(BalancerProperties.class)
public class BalancerServiceApplication {
    /** The balancer's clock: the local time of {@code activeWindow} and the instants of snapshots and round reports. */
    @Bean
    Clock clock() {
        return Clock.systemDefaultZone();
    }

    /** The balancer's short calls to its peers (reads and settings; a round's long-running calls have their own client). */
    @Bean
    PeerCommands peerCommands(CommandClient client) {
        return client::runChecked;
    }

    public static void main(String[] args) {
        SpringApplication.run(BalancerServiceApplication.class, args);
    }
}
