package dev.shardstore.config.sharding;

import dev.shardstore.config.catalog.RoutingChangeCommitted;
import dev.shardstore.config.catalog.ShardCatalog;
import dev.shardstore.config.catalog.ShardEntity;
import dev.shardstore.config.shard.ShardPeers;
import dev.shardstore.contracts.error.CommandException;
import java.util.Collection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * Asks shards to refresh their filtering metadata of a namespace after a catalog change, best effort: a shard that
 * does not answer is logged and left to find out through the version check, which stays the authority.
 */
@Component
public class ShardRefresher {
    private static final Logger log = LoggerFactory.getLogger(ShardRefresher.class);

    private final ShardCatalog shards;
    private final ShardPeers peers;

    public ShardRefresher(ShardCatalog shards, ShardPeers peers) {
        this.shards = shards;
        this.peers = peers;
    }

    /** After a chunk commit: the shards whose chunks changed refresh now (MongoDB's shard refreshes after its own split). */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT)
    void onCommitted(RoutingChangeCommitted committed) {
        refresh(committed.namespace(), committed.shards());
    }

    /** Sends {@code _shardsvrRefreshCollection} for {@code namespace} to each registered shard in {@code shardIds}. */
    public void refresh(String namespace, Collection<String> shardIds) {
        for (ShardEntity shard : shards.listShards()) {
            if (!shardIds.contains(shard.id())) {
                continue;
            }
            try {
                peers.refreshCollection(shard.id(), shard.host(), namespace);
            } catch (CommandException e) {
                log.warn("shard {} did not refresh {}; it will on its next version check: {}", shard.id(), namespace, e.getMessage());
            }
        }
    }
}
