package dev.shardstore.config.catalog;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.contracts.version.ChunkVersion;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * The first step of every chunk commit: lock the collection's row ({@code SELECT … FOR UPDATE}, so commits of one
 * collection are serialized) and check the caller's expectation before anything is written.
 */
@Component
public class CommitGuard {
    /** The name under which the config service reports StaleConfig, MongoDB's config server shard id. */
    public static final String CONFIG_SHARD_ID = "config";

    private final CollectionRepository collections;
    private final ChunkCatalog chunks;
    private final ShardingDdlCoordinators coordinators;

    public CommitGuard(CollectionRepository collections, ChunkCatalog chunks, ShardingDdlCoordinators coordinators) {
        this.collections = collections;
        this.chunks = chunks;
        this.coordinators = coordinators;
    }

    /** A locked collection and its collection version at the time of locking. */
    public record Locked(CollectionEntity entity, ShardedCollection collection, ChunkVersion collectionVersion) {}

    /**
     * Locks {@code namespace} for the rest of the caller's transaction and checks {@code expected}.
     *
     * @throws CommandException StaleEpoch (150) when the collection is not sharded or has another epoch or timestamp;
     *                          StaleConfig (13388) with {@code vReceived}/{@code vWanted} when the expected collection
     *                          version is not the current one; ConflictingOperationInProgress (117) while a
     *                          dropCollection of the namespace is unfinished
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public Locked lock(String namespace, CommitExpectation expected) {
        return lock(namespace, expected, true);
    }

    /**
     * {@link #lock(String, CommitExpectation)}, but also while a DDL coordinator of the namespace runs: for the fence a
     * recovering migration donor puts on its chunk ({@code _configsvrEnsureChunkVersionIsGreaterThan}), which a drop
     * that waits for that very migration must not block.
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public Locked lockDuringDdl(String namespace, CommitExpectation expected) {
        return lock(namespace, expected, false);
    }

    private Locked lock(String namespace, CommitExpectation expected, boolean refuseDuringDdl) {
        CollectionEntity entity = collections.findForUpdate(namespace).orElseThrow(() -> new CommandException(ErrorCode.StaleEpoch,
                "collection " + namespace + " is not sharded (any more); expected epoch " + expected.epoch().toHexString()));
        if (refuseDuringDdl) {
            coordinators.requireNone(namespace, "a chunk commit");
        }
        ShardedCollection collection = entity.toCollection();
        if (!collection.epoch().equals(expected.epoch()) || !collection.timestamp().equals(expected.timestamp())) {
            throw new CommandException(ErrorCode.StaleEpoch, "collection " + namespace + " has epoch " + collection.epoch().toHexString()
                    + " (timestamp " + collection.timestamp().getTime() + "|" + collection.timestamp().getInc() + "), not the expected "
                    + expected.epoch().toHexString() + " (timestamp " + expected.timestamp().getTime() + "|" + expected.timestamp().getInc() + ")");
        }
        ChunkVersion current = chunks.collectionVersion(collection.uuid())
                .orElseThrow(() -> new IllegalStateException("sharded collection " + namespace + " has no chunks"));
        ChunkVersion wanted = expected.collectionVersion();
        if (wanted != null && !wanted.equals(current)) {
            throw new StaleConfig(namespace, wanted, current, CONFIG_SHARD_ID).toException();
        }
        return new Locked(entity, collection, current);
    }
}
