package dev.shardstore.config.catalog;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.config.outbox.Outbox;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.contracts.version.VersionRules;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
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
    private final Outbox outbox;
    private final LogicalClock clock;
    private final TransactionTemplate tx;

    public ReshardingCatalog(CollectionRepository collections, ChunkCatalog chunks, ShardRepository shards,
            ShardingDdlCoordinators coordinators, Outbox outbox, LogicalClock clock, TransactionTemplate tx) {
        this.collections = collections;
        this.chunks = chunks;
        this.shards = shards;
        this.coordinators = coordinators;
        this.outbox = outbox;
        this.clock = clock;
        this.tx = tx;
    }

    /** A new chunk of the commit: its range under the new key and its recipient. */
    public record NewChunk(ChunkRange range, String shard) {
        public NewChunk {
            Objects.requireNonNull(range, "range");
            Objects.requireNonNull(shard, "shard");
        }
    }

    /**
     * The commit's catalog half, in one transaction (MongoDB's coordinator swaps {@code config.collections} and
     * {@code config.chunks} at once): the collection entry gets the operation's uuid (the temporary collection's),
     * the new key, a new epoch and timestamp; its chunks are replaced by {@code newChunks} with versions
     * {@code 1|0, 1|1, …} in key order; a routing change is announced to the old and the new owners. The collection stays
     * held until {@link #unregister}. Idempotent: once the entry has the operation's uuid nothing changes.
     *
     * @param newChunks the new chunks in key order, covering the new key's space
     * @throws CommandException NamespaceNotSharded (118) when the collection is gone; ConflictingOperationInProgress (117)
     *                          when the collection is not held for this operation
     */
    public void commit(Namespace namespace, UUID reshardingUuid, ShardKeyPattern newKey, List<NewChunk> newChunks) {
        tx.executeWithoutResult(status -> {
            CollectionEntity entity = collections.findForUpdate(namespace.full()).orElseThrow(() -> new CommandException(
                    ErrorCode.NamespaceNotSharded, "the resharding of " + namespace.full() + " commits, but it is not sharded"));
            ShardedCollection current = entity.toCollection();
            if (current.uuid().equals(reshardingUuid)) {
                return;
            }
            coordinators.requireResharding(namespace, reshardingUuid);
            ObjectId epoch = new ObjectId();
            BsonTimestamp timestamp = clock.tick(1);
            List<CatalogChunk> old = chunks.all(current.uuid());
            Set<String> owners = new TreeSet<>(chunks.shards(current.uuid()));
            chunks.delete(old.stream().map(CatalogChunk::id).toList());
            List<ChunkVersion> versions = VersionRules.shardCollection(newChunks.size(), epoch, timestamp);
            List<CatalogChunk> placed = new ArrayList<>(newChunks.size());
            for (int i = 0; i < newChunks.size(); i++) {
                placed.add(CatalogChunk.placed(reshardingUuid, newChunks.get(i).range(), newChunks.get(i).shard(), versions.get(i), timestamp));
                owners.add(newChunks.get(i).shard());
            }
            entity.reshard(reshardingUuid, newKey, epoch, timestamp);
            collections.saveAndFlush(entity);
            chunks.insert(newKey, placed);
            outbox.appendRoutingChanged(namespace.full(), epoch, versions.getLast(), owners);
        });
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
