package dev.shardstore.config.sharding;

import dev.shardstore.config.catalog.ShardedCollectionCatalog;
import dev.shardstore.config.catalog.DatabaseCatalog;
import dev.shardstore.config.catalog.DropCollectionCoordinatorDocument;
import dev.shardstore.config.catalog.DropCollectionPhase;
import dev.shardstore.config.catalog.ShardCatalog;
import dev.shardstore.config.catalog.ShardEntity;
import dev.shardstore.config.catalog.ShardingDdlCoordinators;
import dev.shardstore.config.shard.ShardPeers;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.support.failpoint.FailPoints;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.springframework.stereotype.Service;

/**
 * {@code _configsvrDropCollection} as MongoDB's dropCollection coordinator does it (docs/sharding-protocol.md,
 * "Dropping a sharded collection"; mongo/src/mongo/db/s/README.md "DDL operations"). A coordinator document
 * ({@link ShardingDdlCoordinators}) records the phase reached, so that every phase runs even if this process dies:
 * <ol>
 *   <li>(a) {@link DropCollectionPhase#BLOCK}: every shard blocks versioned reads and writes of the collection
 *       ({@code _shardsvrParticipantBlock} with {@code blockType: "ReadsAndWrites"}), waiting for those in flight;</li>
 *   <li>(b) {@link DropCollectionPhase#COMMIT}: the collection instance and its chunks leave the catalog, with their
 *       {@code ROUTING_CHANGED} event;</li>
 *   <li>(c) {@link DropCollectionPhase#DROP_DATA}: every shard drops the data (an unversioned {@code drop}, which the
 *       section does not block);</li>
 *   <li>(d) {@link DropCollectionPhase#RELEASE}: every shard exits the section and refreshes
 *       ({@code blockType: "Unblock"}); the versioned commands that waited get StaleConfig and their routers find the
 *       collection unsharded;</li>
 *   <li>(e) the document is deleted.</li>
 * </ol>
 * Every phase is idempotent. It runs in the coordinator framework ({@link ShardingDdlCoordinatorService}): an
 * unfinished coordinator is resumed from its phase when the config service starts, every
 * {@code shardstore.sharding.ddl-retry-interval} after a failure, and by the next drop of the namespace, which joins a
 * coordinator already running in this process instead of starting a second one. While a coordinator exists,
 * shardCollection, refineCollectionShardKey and chunk commits of the namespace are ConflictingOperationInProgress (117),
 * and so is the start of a drop while a movePrimary of the database is unfinished.
 * The fail points {@code dropCollection.after<Phase>} sit at each phase boundary (after the phase is recorded).
 */
@Service
public class DropCollectionCoordinator implements ResumableDdlCoordinator {

    private final DatabaseCatalog databases;
    private final ShardCatalog shards;
    private final ShardedCollectionCatalog collections;
    private final ShardingDdlCoordinators coordinators;
    private final ShardPeers peers;
    private final ShardingDdlCoordinatorService ddl;
    private final FailPoints failPoints;

    public DropCollectionCoordinator(DatabaseCatalog databases, ShardCatalog shards, ShardedCollectionCatalog collections,
            ShardingDdlCoordinators coordinators, ShardPeers peers, ShardingDdlCoordinatorService ddl, FailPoints failPoints) {
        this.databases = databases;
        this.shards = shards;
        this.collections = collections;
        this.coordinators = coordinators;
        this.peers = peers;
        this.ddl = ddl;
        this.failPoints = failPoints;
    }

    /**
     * Drops {@code namespace} on every shard and from the catalog (see the class comment), or joins the drop of it
     * already running or resumes an unfinished one.
     *
     * @return true when the coordinator dropped a sharded collection (it left the catalog)
     * @throws CommandException HostUnreachable/NetworkTimeout or a shard's error when a phase could not complete; the
     *                          coordinator then resumes by itself (or with the next drop) from the phase it reached;
     *                          ConflictingOperationInProgress (117) while a movePrimary of the database is unfinished
     */
    public boolean drop(Namespace namespace) {
        return ddl.run(namespace.full(), DropCollectionCoordinatorDocument.OPERATION, namespace.full(), () -> run(namespace));
    }

    @Override
    public String operation() {
        return DropCollectionCoordinatorDocument.OPERATION;
    }

    @Override
    public void resume(String key) {
        drop(Namespace.parse(key));
    }

    /**
     * Drops every sharded collection of {@code db}, as dropDatabase must before the database entry goes: their chunks
     * may be on any shard, not only on the primary.
     */
    public void dropShardedCollectionsOf(String db) {
        for (ShardedCollection c : collections.list()) {
            if (c.database().equals(db)) {
                drop(new Namespace(c.database(), c.collection()));
            }
        }
    }

    private boolean run(Namespace namespace) {
        if (coordinators.findDropCollection(namespace).isEmpty() && collections.find(namespace.full()).isEmpty()
                && databases.find(namespace.db()).isEmpty()) {
            return false; // nothing anywhere to drop
        }
        DropCollectionCoordinatorDocument document = coordinators.startDropCollection(namespace).document();
        failPoints.hit("dropCollection.afterStart");
        BsonDocument reason = reason(namespace);
        if (document.phase() == DropCollectionPhase.BLOCK) {
            onEveryShard(shard -> peers.participantBlock(shard.id(), shard.host(), namespace.db(), namespace.collection(),
                    "ReadsAndWrites", reason));
            document = ddl.advance(document.at(DropCollectionPhase.COMMIT), "dropCollection.afterBlock");
        }
        if (document.phase() == DropCollectionPhase.COMMIT) {
            if (document.collectionUuid() != null) {
                collections.remove(namespace.full(), document.collectionUuid()); // false when a previous run removed it
            }
            document = ddl.advance(document.at(DropCollectionPhase.DROP_DATA), "dropCollection.afterCatalogCommit");
        }
        if (document.phase() == DropCollectionPhase.DROP_DATA) {
            onEveryShard(shard -> peers.dropCollection(shard.id(), shard.host(), namespace.db(), namespace.collection()));
            document = ddl.advance(document.at(DropCollectionPhase.RELEASE), "dropCollection.afterDataDrop");
        }
        onEveryShard(shard -> peers.participantBlock(shard.id(), shard.host(), namespace.db(), namespace.collection(),
                "Unblock", reason));
        failPoints.hit("dropCollection.afterRelease");
        coordinators.delete(document.key());
        return document.collectionUuid() != null;
    }

    /** The critical section's reason on the shards: only this coordinator (of this namespace) may exit it. */
    private static BsonDocument reason(Namespace namespace) {
        return new BsonDocument("command", new BsonString("dropCollection")).append("ns", new BsonString(namespace.full()));
    }

    private void onEveryShard(Consumer<ShardEntity> step) {
        shards.listShards().forEach(step);
    }
}
