package dev.shardstore.router.routing;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Shard id → host URL (mongo/src/mongo/db/s/README.md "The shard registry"): refreshed at start, periodically
 * ({@code shardstore.router.shard-registry-refresh}, default 30 s), on a SHARD_ADDED event and on a miss.
 */
@Component
public class ShardRegistry {
    private static final Logger log = LoggerFactory.getLogger(ShardRegistry.class);

    private final ConfigServer config;
    private final AtomicReference<Map<String, String>> hosts = new AtomicReference<>(Map.of());

    public ShardRegistry(ConfigServer config) {
        this.config = config;
    }

    /**
     * The host URL of a shard, refreshing once on a miss.
     *
     * @throws CommandException ShardNotFound (70) when the config service does not know the shard either
     */
    public String hostOf(String shardId) {
        String host = hosts.get().get(shardId);
        if (host == null) {
            refresh();
            host = hosts.get().get(shardId);
        }
        if (host == null) {
            throw new CommandException(ErrorCode.ShardNotFound, "shard '" + shardId + "' is not registered");
        }
        return host;
    }

    /** Every known shard id → host, sorted by id. */
    public Map<String, String> all() {
        return hosts.get();
    }

    /** Reloads the registry from {@code listShards}. */
    public void refresh() {
        Map<String, String> fresh = new TreeMap<>();
        for (BsonValue shard : config.listShards().getArray("shards")) {
            fresh.put(shard.asDocument().getString("_id").getValue(), shard.asDocument().getString("host").getValue());
        }
        hosts.set(Map.copyOf(fresh));
    }

    @EventListener(ApplicationReadyEvent.class)
    @Scheduled(fixedDelayString = "${shardstore.router.shard-registry-refresh:30s}", initialDelayString = "${shardstore.router.shard-registry-refresh:30s}")
    public void refreshQuietly() {
        try {
            refresh();
        } catch (CommandException e) {
            log.warn("shard registry refresh failed; keeping {} known shards: {}", hosts.get().size(), e.getMessage());
        }
    }
}
