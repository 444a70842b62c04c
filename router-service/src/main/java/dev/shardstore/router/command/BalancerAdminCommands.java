package dev.shardstore.router.command;

import dev.shardstore.router.RouterProperties;
import dev.shardstore.router.routing.LongRunningClient;
import dev.shardstore.support.command.CommandHandler;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * MongoDB's balancer commands on {@code admin}, forwarded to the balancer service as mongos forwards them to the config
 * server's balancer: {@code balancerStart}, {@code balancerStop}, {@code balancerStatus}, {@code balancerCollectionStatus},
 * and this project's dry run {@code balancerPlan}. Replies and errors are the balancer service's (see its
 * {@code BalancerCommands}); IllegalOperation off {@code admin}; HostUnreachable when the balancer service is down.
 */
@Configuration
public class BalancerAdminCommands {
    private final LongRunningClient client;
    private final String balancerUrl;

    public BalancerAdminCommands(RouterProperties properties, LongRunningClient client) {
        // balancerStop waits for the round in progress, which waits for its migrations: the migration timeout bounds it
        this.client = client;
        this.balancerUrl = properties.balancerUrl();
    }

    @Bean
    CommandHandler balancerStart() {
        return forwarded("balancerStart");
    }

    @Bean
    CommandHandler balancerStop() {
        return forwarded("balancerStop");
    }

    @Bean
    CommandHandler balancerStatus() {
        return forwarded("balancerStatus");
    }

    @Bean
    CommandHandler balancerCollectionStatus() {
        return forwarded("balancerCollectionStatus");
    }

    @Bean
    CommandHandler balancerPlan() {
        return forwarded("balancerPlan");
    }

    private CommandHandler forwarded(String name) {
        return CommandHandler.of(name, (db, cmd) -> {
            Namespaces.checkAdmin(db, name);
            return client.runChecked("balancer", balancerUrl, "admin", cmd);
        });
    }
}
