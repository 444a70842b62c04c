package dev.shardstore.config.sharding;

import dev.shardstore.config.catalog.ShardedCollectionCatalog;
import dev.shardstore.config.catalog.DatabaseCatalog;
import dev.shardstore.config.catalog.DatabaseEntity;
import dev.shardstore.config.catalog.MovePrimaryCoordinatorDocument;
import dev.shardstore.config.catalog.MovePrimaryPhase;
import dev.shardstore.config.catalog.ShardCatalog;
import dev.shardstore.config.catalog.ShardEntity;
import dev.shardstore.config.catalog.ShardingDdlCoordinators;
import dev.shardstore.config.changelog.Changelog;
import dev.shardstore.config.shard.ShardPeers;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.support.failpoint.FailPoints;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.stereotype.Service;

/**
 * {@code _configsvrMovePrimary} as MongoDB's movePrimary coordinator does it (docs/sharding-protocol.md, "Moving a
 * database's primary shard"; mongo/src/mongo/db/s/README.md "Shard versioning and database versioning", "DDL operations"). A coordinator
 * document ({@link MovePrimaryCoordinatorDocument}, in the one coordinator framework {@link ShardingDdlCoordinatorService})
 * records the phase reached, so that every phase runs even if this process dies:
 * <ol>
 *   <li>{@link MovePrimaryPhase#BLOCK_WRITES}: the old primary enters the database's critical section blocking writes
 *       ({@code _shardsvrMovePrimaryEnterCriticalSection}, {@code "Writes"}): the versioned commands that the database
 *       version places (unsharded collections, database-level commands) wait there, and those in flight are drained.
 *       Then the collections to move are recorded: the old primary's collections of the database that are not sharded
 *       (sharded ones stay where their chunks are);</li>
 *   <li>{@link MovePrimaryPhase#CLONE}: the new primary clones them from the old one ({@code _shardsvrCloneCatalogData}:
 *       options, documents in batches, indexes). No catch-up follows: every write was blocked since (1), so the copy is
 *       complete; reads go on being served by the old primary meanwhile;</li>
 *   <li>{@link MovePrimaryPhase#COMMIT}: the old primary blocks reads too ({@code "ReadsAndWrites"}), as a migration's
 *       commit does, so that nothing is read there once the catalog says otherwise; then the catalog commits the new
 *       primary at {@code lastMod + 1} (same uuid) with {@code DATABASE_VERSION_CHANGED}, through the outbox;</li>
 *   <li>{@link MovePrimaryPhase#RELEASE}: the old primary exits the section and reloads the database version; the
 *       commands that waited get StaleDbVersion and their routers refresh and retry on the new primary;</li>
 *   <li>{@link MovePrimaryPhase#DROP_OLD}: the old copies are dropped from the old primary (after the commit, never
 *       before);</li>
 *   <li>the document is deleted.</li>
 * </ol>
 * Every phase is idempotent; a coordinator is resumed from its recorded phase when the config service starts, every
 * {@code shardstore.sharding.ddl-retry-interval} after a failure, and by a movePrimary of the database to the same shard,
 * which joins a running coordinator (MongoDB's coordinator service does the same for an identical request). A movePrimary
 * to another shard, or while another DDL coordinator of the database or of one of its collections runs, is
 * ConflictingOperationInProgress (117); while it runs, the DDL operations and chunk commits of the database's collections
 * and dropDatabase are refused the same way.
 *
 * <p>If the commit finds the database no longer at the version the move started from (dropped or changed by something
 * that bypassed this serialization), the move is rolled back instead: the new primary drops its copies, the old primary
 * leaves its section, the document is deleted and the caller gets ConflictingOperationInProgress. The fail points
 * {@code movePrimary.after<Step>} sit at each phase boundary (after the phase is recorded).
 */
@Service
public class MovePrimaryCoordinator implements ResumableDdlCoordinator {
    private final DatabaseCatalog databases;
    private final ShardCatalog shards;
    private final ShardedCollectionCatalog collections;
    private final ShardingDdlCoordinators coordinators;
    private final ShardingDdlCoordinatorService ddl;
    private final ShardPeers peers;
    private final FailPoints failPoints;
    private final Changelog changelog;

    public MovePrimaryCoordinator(DatabaseCatalog databases, ShardCatalog shards, ShardedCollectionCatalog collections,
            ShardingDdlCoordinators coordinators, ShardingDdlCoordinatorService ddl, ShardPeers peers, FailPoints failPoints,
            Changelog changelog) {
        this.databases = databases;
        this.shards = shards;
        this.collections = collections;
        this.coordinators = coordinators;
        this.ddl = ddl;
        this.peers = peers;
        this.failPoints = failPoints;
        this.changelog = changelog;
    }

    /**
     * Makes {@code to} the primary shard of {@code db} (see the class comment), or joins or resumes the unfinished move
     * of {@code db} to {@code to}. Moving to the current primary is a no-op.
     *
     * @throws CommandException InvalidOptions (72) for admin, config and local; NamespaceNotFound (26) when the database
     *                          does not exist; ShardNotFound (70) when {@code to} is not a registered shard;
     *                          ConflictingOperationInProgress (117) while another movePrimary or DDL operation of the
     *                          database runs, or when the move was rolled back; HostUnreachable/NetworkTimeout or a
     *                          shard's error when a phase could not complete (the coordinator resumes by itself)
     */
    public void movePrimary(String db, String to) {
        if (DatabaseCatalog.RESERVED.contains(db)) {
            throw new CommandException(ErrorCode.InvalidOptions, "Can't move primary for " + db + " database");
        }
        DatabaseEntity database = databases.find(db)
                .orElseThrow(() -> new CommandException(ErrorCode.NamespaceNotFound, "database '" + db + "' not found"));
        shard(to);
        Optional<MovePrimaryCoordinatorDocument> unfinished = coordinators.findMovePrimary(db);
        if (unfinished.isPresent() && !unfinished.get().toShard().equals(to)) {
            throw conflict(unfinished.get(), to);
        }
        if (unfinished.isEmpty() && database.primaryShard().equals(to)) {
            return; // already the primary
        }
        ddl.run(db, MovePrimaryCoordinatorDocument.OPERATION, to, () -> {
            run(db, to);
            return Boolean.TRUE;
        });
    }

    @Override
    public String operation() {
        return MovePrimaryCoordinatorDocument.OPERATION;
    }

    @Override
    public void resume(String key) {
        coordinators.findMovePrimary(key).ifPresent(document -> movePrimary(key, document.toShard()));
    }

    private void run(String db, String to) {
        MovePrimaryCoordinatorDocument document = coordinators.findMovePrimary(db).orElse(null);
        if (document == null) {
            DatabaseEntity database = databases.find(db)
                    .orElseThrow(() -> new CommandException(ErrorCode.NamespaceNotFound, "database '" + db + "' not found"));
            if (database.primaryShard().equals(to)) {
                return; // a move that finished meanwhile
            }
            document = coordinators.startMovePrimary(MovePrimaryCoordinatorDocument.start(db, database.primaryShard(), to,
                    database.version())).document();
            changelog.record("config", document.fromShard(), "movePrimary.start", db, changelogDetails(document));
        }
        if (!document.toShard().equals(to)) {
            throw conflict(document, to);
        }
        failPoints.hit("movePrimary.afterStart");
        ShardEntity donor = shard(document.fromShard());
        ShardEntity recipient = shard(document.toShard());
        BsonDocument reason = reason(document);
        if (document.phase() == MovePrimaryPhase.BLOCK_WRITES) {
            peers.movePrimaryEnterCriticalSection(donor.id(), donor.host(), db, "Writes", reason);
            document = ddl.advance(document.at(MovePrimaryPhase.CLONE).moving(unshardedCollections(db, donor)), "movePrimary.afterBlockWrites");
        }
        if (document.phase() == MovePrimaryPhase.CLONE) {
            peers.cloneCatalogData(recipient.id(), recipient.host(), db, donor.id(), donor.host(), document.collections());
            document = ddl.advance(document.at(MovePrimaryPhase.COMMIT), "movePrimary.afterClone");
        }
        if (document.phase() == MovePrimaryPhase.COMMIT) {
            peers.movePrimaryEnterCriticalSection(donor.id(), donor.host(), db, "ReadsAndWrites", reason);
            Optional<DatabaseVersion> moved = databases.commitMovePrimary(db, document.version(), donor.id(), recipient.id());
            if (moved.isEmpty()) {
                rollBack(document, donor, recipient, reason);
            }
            changelog.record("config", donor.id(), "movePrimary.commit", db, changelogDetails(document)
                    .append("collections", new BsonArray(document.collections().stream().map(c -> (BsonValue) new BsonString(c)).toList())));
            document = ddl.advance(document.at(MovePrimaryPhase.RELEASE), "movePrimary.afterCommit");
        }
        if (document.phase() == MovePrimaryPhase.RELEASE) {
            peers.movePrimaryExitCriticalSection(donor.id(), donor.host(), db, reason);
            document = ddl.advance(document.at(MovePrimaryPhase.DROP_OLD), "movePrimary.afterRelease");
        }
        for (String collection : document.collections()) {
            peers.dropCollection(donor.id(), donor.host(), db, collection);
        }
        failPoints.hit("movePrimary.afterDropOld");
        coordinators.delete(document.key());
    }

    /** MongoDB's details of a {@code movePrimary.*} changelog entry: {@code {database, from, to}}. */
    private static BsonDocument changelogDetails(MovePrimaryCoordinatorDocument document) {
        return new BsonDocument("database", new BsonString(document.db())).append("from", new BsonString(document.fromShard()))
                .append("to", new BsonString(document.toShard()));
    }

    /** The donor's collections of {@code db} that the catalog does not list as sharded. */
    private List<String> unshardedCollections(String db, ShardEntity donor) {
        Set<String> sharded = collections.list().stream().filter(c -> c.database().equals(db)).map(ShardedCollection::collection)
                .collect(Collectors.toSet());
        return peers.listCollectionNames(donor.id(), donor.host(), db).stream().filter(c -> !sharded.contains(c)).toList();
    }

    /**
     * Undoes a move whose commit was refused: the recipient's copies go, the donor leaves its section (its waiters
     * re-check against the database as it now is), the document is deleted. Every step is idempotent, so a crash in
     * between repeats them when the coordinator is resumed at {@link MovePrimaryPhase#COMMIT}.
     *
     * @throws CommandException always: ConflictingOperationInProgress (117) saying the move was rolled back
     */
    private void rollBack(MovePrimaryCoordinatorDocument document, ShardEntity donor, ShardEntity recipient, BsonDocument reason) {
        for (String collection : document.collections()) {
            peers.dropCollection(recipient.id(), recipient.host(), document.db(), collection);
        }
        peers.movePrimaryExitCriticalSection(donor.id(), donor.host(), document.db(), reason);
        coordinators.delete(document.key());
        throw new CommandException(ErrorCode.ConflictingOperationInProgress, "movePrimary of " + document.db() + " to " + document.toShard()
                + " was rolled back: the database is no longer at " + document.version() + " on " + document.fromShard());
    }

    private ShardEntity shard(String id) {
        return shards.listShards().stream().filter(s -> s.id().equals(id)).findFirst()
                .orElseThrow(() -> new CommandException(ErrorCode.ShardNotFound, "shard '" + id + "' not found"));
    }

    /** The critical section's reason on the old primary: only this move of this database may change or exit it. */
    private static BsonDocument reason(MovePrimaryCoordinatorDocument document) {
        return new BsonDocument("command", new BsonString("movePrimary")).append("db", new BsonString(document.db()))
                .append("to", new BsonString(document.toShard()));
    }

    private static CommandException conflict(MovePrimaryCoordinatorDocument running, String to) {
        return new CommandException(ErrorCode.ConflictingOperationInProgress, "movePrimary of " + running.db() + " to " + to
                + " is refused while its move to " + running.toShard() + " (phase " + running.phase() + ") is unfinished");
    }
}
