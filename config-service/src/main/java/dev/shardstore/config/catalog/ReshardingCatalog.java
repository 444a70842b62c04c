package dev.shardstore.config.catalog;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The config service's part of a resharding operation's catalog (docs/architecture.md "Resharding"): the collection is
 * held for the operation while it runs ({@link ShardingDdlCoordinators#startResharding}: other DDL, migrations and chunk
 * commits of it are ConflictingOperationInProgress, so the balancer cannot move its chunks), and the participants are
 * fixed from the catalog: the donors own its chunks now, the recipients are every shard not draining (the new chunks
 * are spread over them).
 */
@Service
public class ReshardingCatalog {
    private final CollectionRepository collections;
    private final ChunkCatalog chunks;
    private final ShardRepository shards;
    private final ShardingDdlCoordinators coordinators;
    private final TransactionTemplate tx;

    public ReshardingCatalog(CollectionRepository collections, ChunkCatalog chunks, ShardRepository shards,
            ShardingDdlCoordinators coordinators, TransactionTemplate tx) {
        this.collections = collections;
        this.chunks = chunks;
        this.shards = shards;
        this.coordinators = coordinators;
        this.tx = tx;
    }

    /**
     * What registering a resharding found.
     *
     * @param noChange   the collection already has the requested key and no redistribution was asked for: nothing was
     *                   registered, the operation has nothing to do (MongoDB answers such a reshardCollection at once)
     * @param donors     the shards owning chunks of the collection, sorted; empty when {@code noChange}
     * @param recipients the shards not draining, sorted; empty when {@code noChange}
     */
    public record Registration(boolean noChange, List<String> donors, List<String> recipients) {
        public Registration {
            donors = List.copyOf(donors);
            recipients = List.copyOf(recipients);
        }
    }

    /**
     * Holds {@code namespace} for resharding operation {@code reshardingUuid} and fixes its participants. Idempotent for
     * the same operation (a restarted coordinator repeats it).
     *
     * @throws CommandException NamespaceNotSharded (118) when the collection is not sharded; ConflictingOperationInProgress
     *                          (117) while another DDL operation or resharding holds it or its database
     */
    public Registration register(Namespace namespace, UUID reshardingUuid, ShardKeyPattern newKey, boolean forceRedistribution) {
        return Objects.requireNonNull(tx.execute(status -> {
            CollectionEntity entity = collections.findForUpdate(namespace.full()).orElseThrow(() -> new CommandException(
                    ErrorCode.NamespaceNotSharded, "reshardCollection of " + namespace.full() + ", which is not sharded"));
            ShardedCollection current = entity.toCollection();
            if (!forceRedistribution && current.key().pattern().equals(newKey.pattern())) {
                return new Registration(true, List.of(), List.of());
            }
            coordinators.startResharding(namespace, reshardingUuid);
            List<String> recipients = shards.findAll().stream().filter(s -> !s.draining()).map(ShardEntity::id)
                    .sorted(Comparator.naturalOrder()).toList();
            return new Registration(false, chunks.shards(current.uuid()), recipients);
        }));
    }

    /** Releases {@code namespace} from resharding operation {@code reshardingUuid} (its abort); nothing when it is not held. */
    public void unregister(Namespace namespace, UUID reshardingUuid) {
        tx.executeWithoutResult(status -> coordinators.finishResharding(namespace, reshardingUuid));
    }
}
