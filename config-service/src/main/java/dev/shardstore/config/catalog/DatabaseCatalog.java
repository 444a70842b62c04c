package dev.shardstore.config.catalog;

import dev.shardstore.contracts.version.VersionRules;
import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.config.outbox.Outbox;
import dev.shardstore.config.shard.ShardPeers;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.contracts.version.DatabaseVersion;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code config.databases}: lookup, creation on first write, dropDatabase and movePrimary's commit.
 *
 * <p>Creation follows mongo/src/mongo/db/s/README.md ("Database creation"): the primary shard is the shard with the
 * smallest total data size; the version is {uuid: new, lastMod: 1, timestamp}. Creations and drops of
 * one database are serialized by a PostgreSQL advisory lock on its name, so concurrent first writes
 * from several routers create it exactly once.
 */
@Service
public class DatabaseCatalog {
    /** Databases that exist implicitly and are never created or dropped through the catalog. */
    public static final Set<String> RESERVED = Set.of("admin", "config", "local");

    private final DatabaseRepository databases;
    private final ShardRepository shards;
    private final ShardPeers peers;
    private final Outbox outbox;
    private final LogicalClock clock;
    private final JdbcClient jdbc;
    private final TransactionTemplate tx;

    public DatabaseCatalog(DatabaseRepository databases, ShardRepository shards, ShardPeers peers, Outbox outbox,
            LogicalClock clock, JdbcClient jdbc, TransactionTemplate tx) {
        this.databases = databases;
        this.shards = shards;
        this.peers = peers;
        this.outbox = outbox;
        this.clock = clock;
        this.jdbc = jdbc;
        this.tx = tx;
    }

    public Optional<DatabaseEntity> find(String db) {
        return databases.findById(db);
    }

    /** Every database, ordered by name. */
    public List<DatabaseEntity> list() {
        return databases.findAll(org.springframework.data.domain.Sort.by("id"));
    }

    /**
     * Returns the database, creating it with the least-loaded shard as primary when it does not exist.
     *
     * @throws CommandException InvalidNamespace for admin/config/local; ShardNotFound when no shard is
     *                          registered; HostUnreachable when a shard cannot report its size
     */
    public DatabaseEntity getOrCreate(String db) {
        if (RESERVED.contains(db)) {
            throw new CommandException(ErrorCode.InvalidNamespace, "cannot create the reserved database '" + db + "'");
        }
        Optional<DatabaseEntity> existing = databases.findById(db);
        if (existing.isPresent()) {
            return existing.get();
        }
        String primary = leastLoadedShard();
        return tx.execute(status -> {
            lock(db);
            return databases.findById(db).orElseGet(() -> {
                DatabaseEntity created = databases.save(new DatabaseEntity(db, primary, VersionRules.newDatabase(clock.tick(1))));
                outbox.append(CatalogEvent.Type.DATABASE_CREATED, db, null);
                return created;
            });
        });
    }

    /**
     * Drops the database: first its data on the primary shard, then the catalog entry (so a failure
     * leaves a catalog entry to retry against, never orphaned data without one). Dropping a database
     * that does not exist succeeds, as in MongoDB.
     *
     * @return true when a database was dropped
     * @throws CommandException InvalidNamespace for admin/config/local; HostUnreachable when the primary shard is down
     */
    public boolean drop(String db) {
        if (RESERVED.contains(db)) {
            throw new CommandException(ErrorCode.InvalidNamespace, "cannot drop the reserved database '" + db + "'");
        }
        Optional<DatabaseEntity> existing = databases.findById(db);
        if (existing.isEmpty()) {
            return false;
        }
        ShardEntity primary = shards.findById(existing.get().primaryShard()).orElseThrow(() -> new CommandException(
                ErrorCode.ShardNotFound, "primary shard '" + existing.get().primaryShard() + "' of database '" + db + "' is not registered"));
        peers.dropDatabase(primary.id(), primary.host(), db, existing.get().version());
        return Boolean.TRUE.equals(tx.execute(status -> {
            lock(db);
            if (!databases.existsById(db)) {
                return false;
            }
            databases.deleteById(db);
            outbox.append(CatalogEvent.Type.DATABASE_DROPPED, db, null);
            return true;
        }));
    }

    /**
     * movePrimary's commit (mongo/src/mongo/db/s/README.md "Types of operations…": changing the primary shard increments {@code lastMod}):
     * in one transaction, {@code db}'s primary becomes {@code to} at {@code lastMod + 1} of {@code expected} (same uuid,
     * a new timestamp), with a {@code DATABASE_VERSION_CHANGED} event. Idempotent: when an earlier call committed this
     * move (primary {@code to} at {@code expected.lastMod + 1}), it returns that version and changes nothing.
     *
     * @return the version after the move; empty when the database is no longer {@code expected} on {@code from} (dropped,
     *         re-created, or moved by something else): nothing is written
     */
    public Optional<DatabaseVersion> commitMovePrimary(String db, DatabaseVersion expected, String from, String to) {
        return tx.execute(status -> {
            lock(db);
            Optional<DatabaseEntity> entry = databases.findById(db);
            if (entry.isEmpty() || !entry.get().version().uuid().equals(expected.uuid())) {
                return Optional.<DatabaseVersion>empty();
            }
            DatabaseEntity database = entry.get();
            DatabaseVersion current = database.version();
            if (database.primaryShard().equals(to) && current.lastMod() == expected.lastMod() + 1) {
                return Optional.of(current);
            }
            if (!database.primaryShard().equals(from) || current.lastMod() != expected.lastMod()) {
                return Optional.<DatabaseVersion>empty();
            }
            DatabaseVersion moved = VersionRules.movePrimary(current, clock.tick(1));
            database.movePrimary(to, moved);
            databases.save(database);
            outbox.append(CatalogEvent.Type.DATABASE_VERSION_CHANGED, db, null);
            return Optional.of(moved);
        });
    }

    private void lock(String db) {
        jdbc.sql("SELECT pg_advisory_xact_lock(hashtext(?))").param("database:" + db).query().singleValue();
    }

    private String leastLoadedShard() {
        // a draining shard (removeShard) takes no new database, as in MongoDB
        List<ShardEntity> all = shards.findAll().stream().filter(s -> !s.draining()).toList();
        if (all.isEmpty()) {
            throw new CommandException(ErrorCode.ShardNotFound, "no shards are registered (or all are draining): run addShard first");
        }
        record Load(ShardEntity shard, long bytes) {}
        return all.parallelStream()
                .map(s -> new Load(s, peers.totalSize(s.id(), s.host())))
                .min(Comparator.comparingLong(Load::bytes).thenComparing(l -> l.shard().id()))
                .orElseThrow()
                .shard()
                .id();
    }
}
