package dev.shardstore.config.catalog;

import dev.shardstore.config.outbox.Outbox;
import dev.shardstore.config.shard.ShardPeers;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.event.CatalogEvent;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/** {@code addShard} and {@code listShards} over {@code config.shards}. */
@Service
public class ShardCatalog {
    private final ShardRepository shards;
    private final ShardPeers peers;
    private final Outbox outbox;
    private final TransactionTemplate tx;

    public ShardCatalog(ShardRepository shards, ShardPeers peers, Outbox outbox, TransactionTemplate tx) {
        this.shards = shards;
        this.peers = peers;
        this.outbox = outbox;
        this.tx = tx;
    }

    /**
     * Registers the shard at {@code host} after checking that it answers and that its own name
     * matches {@code name} (when given). Adding the same name and host again is a no-op, as in MongoDB.
     *
     * @param host base URL of the shard service, for example {@code http://localhost:8101}
     * @param name the shard id; null to take the name the shard reports
     * @return the registered shard
     * @throws CommandException BadValue for a malformed host URL; HostUnreachable/NetworkTimeout when the
     *                          shard does not answer; OperationFailed when the name or host is taken by
     *                          another shard, or the shard reports a different name
     */
    public ShardEntity addShard(String host, @Nullable String name) {
        String normalized = normalizeHost(host);
        String reported = peers.name(normalized);
        if (name != null && !name.equals(reported)) {
            throw new CommandException(ErrorCode.OperationFailed,
                    "the shard at " + normalized + " calls itself '" + reported + "', not '" + name + "'");
        }
        return tx.execute(status -> {
            Optional<ShardEntity> byName = shards.findById(reported);
            Optional<ShardEntity> byHost = shards.findByHost(normalized);
            if (byName.isPresent() && byName.get().host().equals(normalized)) {
                return byName.get();
            }
            if (byName.isPresent()) {
                throw new CommandException(ErrorCode.OperationFailed,
                        "a shard named '" + reported + "' already exists at " + byName.get().host());
            }
            if (byHost.isPresent()) {
                throw new CommandException(ErrorCode.OperationFailed,
                        "the host " + normalized + " is already registered as shard '" + byHost.get().id() + "'");
            }
            ShardEntity added = shards.save(new ShardEntity(reported, normalized));
            outbox.append(CatalogEvent.Type.SHARD_ADDED, "", null);
            return added;
        });
    }

    /** Every registered shard, ordered by id. */
    public List<ShardEntity> listShards() {
        return shards.findAll(org.springframework.data.domain.Sort.by("id"));
    }

    private static String normalizeHost(String host) {
        try {
            URI uri = URI.create(host.strip());
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new IllegalArgumentException("needs an http(s) URL with a host");
            }
            String s = uri.toString();
            return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
        } catch (IllegalArgumentException e) {
            throw new CommandException(ErrorCode.BadValue, "addShard: '" + host + "' is not a shard URL such as http://localhost:8101 (" + e.getMessage() + ")");
        }
    }
}
