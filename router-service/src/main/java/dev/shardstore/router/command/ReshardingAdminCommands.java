package dev.shardstore.router.command;

import dev.shardstore.router.RouterProperties;
import dev.shardstore.router.routing.LongRunningClient;
import dev.shardstore.router.routing.RoutingTableCache;
import dev.shardstore.support.command.CommandHandler;
import org.bson.BsonDocument;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * MongoDB's resharding commands on {@code admin}, forwarded to the resharding service (mongos forwards them to the
 * config server, where MongoDB's resharding coordinator runs): {@code reshardCollection}, which answers once the
 * operation is over (as moveChunk, within {@code shardstore.router.migration-timeout}), {@code commitReshardCollection}
 * (answers once the running operation committed) and {@code abortReshardCollection}. Replies and errors are the coordinator's (see its {@code ReshardingCommands}:
 * options it does not implement are InvalidOptions naming them; ReshardCollectionAborted 341,
 * ReshardCollectionCommitted 340, NoSuchReshardCollection 339, ReshardCollectionInProgress 338); IllegalOperation off
 * {@code admin}; HostUnreachable when the resharding service is down. Afterwards the router marks its routing table
 * entry of the collection stale, whatever the outcome, so its next statement reads the layout in place.
 */
@Configuration
public class ReshardingAdminCommands {
    private final LongRunningClient client;
    private final RoutingTableCache collections;
    private final String reshardingUrl;

    public ReshardingAdminCommands(RouterProperties properties, LongRunningClient client, RoutingTableCache collections) {
        this.client = client;
        this.collections = collections;
        this.reshardingUrl = properties.reshardingUrl();
    }

    @Bean
    CommandHandler reshardCollection() {
        return forwarded("reshardCollection");
    }

    @Bean
    CommandHandler abortReshardCollection() {
        return forwarded("abortReshardCollection");
    }

    @Bean
    CommandHandler commitReshardCollection() {
        return forwarded("commitReshardCollection");
    }

    private CommandHandler forwarded(String name) {
        return CommandHandler.of(name, (db, cmd) -> {
            Namespaces.checkAdmin(db, name);
            String ns = ShardingAdminCommands.namespace(cmd, name);
            try {
                return client.runChecked("resharding", reshardingUrl, "admin", cmd);
            } finally {
                collections.markStale(ns);
            }
        });
    }
}
