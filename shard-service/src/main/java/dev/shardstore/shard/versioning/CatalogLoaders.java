package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.transport.http.CommandClient;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.support.catalog.ConfigCommands;
import dev.shardstore.support.catalog.DatabaseLoader;
import dev.shardstore.support.catalog.RoutingTableLoader;
import org.bson.BsonDocument;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The shard's loaders of catalog information, the ones the router uses too, sending their commands to the config
 * service with the shard's {@link CommandClient}.
 */
@Configuration(proxyBeanMethods = false)
public class CatalogLoaders {
    private static ConfigCommands config(CommandClient client, ServiceSupportProperties support) {
        String url = support.configUrl();
        return command -> {
            BsonDocument reply = client.run("config", url, "admin", command);
            if (ErrorReplies.isError(reply)) {
                throw ErrorReplies.toException(reply);
            }
            return reply;
        };
    }

    /** Loads collections' routing tables, which are this shard's filtering metadata. */
    @Bean
    RoutingTableLoader routingTableLoader(CommandClient client, ServiceSupportProperties support) {
        return new RoutingTableLoader(config(client, support));
    }

    /** Loads databases' entries. */
    @Bean
    DatabaseLoader databaseLoader(CommandClient client, ServiceSupportProperties support) {
        return new DatabaseLoader(config(client, support));
    }
}
