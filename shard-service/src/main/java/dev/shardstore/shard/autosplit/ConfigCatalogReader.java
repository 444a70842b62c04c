package dev.shardstore.shard.autosplit;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.transport.http.CommandClient;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * Reads collections of the config service's {@code config} database ({@code find} with an equality filter, one batch:
 * docs/sharding-protocol.md), as the auto-splitter needs {@code config.settings}, {@code config.collections},
 * {@code config.shards} and {@code config.tags}.
 */
@Component
class ConfigCatalogReader {
    private static final String CONFIG = "config";
    private final CommandClient client;
    private final String configUrl;

    ConfigCatalogReader(CommandClient client, ServiceSupportProperties support) {
        this.client = client;
        this.configUrl = support.configUrl();
    }

    /**
     * The documents of {@code config.<collection>} matching {@code filter}.
     *
     * @throws CommandException the config service's error; HostUnreachable/NetworkTimeout when it does not answer
     */
    List<BsonDocument> find(String collection, BsonDocument filter) {
        BsonDocument reply = client.runChecked(CONFIG, configUrl, CONFIG,
                new BsonDocument("find", new BsonString(collection)).append("filter", filter));
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }
}
