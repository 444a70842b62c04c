package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.shard.ShardProperties;
import dev.shardstore.support.failpoint.FailPoints;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import dev.shardstore.support.operation.OperationContext;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The shard's version check, critical sections and collection locks as one mechanism (docs/architecture.md "Shard versioning and the stale-config retry loop"; MongoDB's
 * {@code CollectionShardingRuntime} with its collection lock; mongo/src/mongo/db/s/README.md "Shard versioning and database
 * versioning", "Migrations"). Per namespace it owns:
 * <ul>
 *   <li>the collection lock: commands that read or write documents hold it shared, commands that change the
 *       collection exclusively ({@link CollectionAccess}); held for one command, never between getMores;</li>
 *   <li>the critical section, if any ({@link CriticalSection}): phase 1 blocks versioned writes, phase 2 versioned
 *       reads and writes. Entering either phase takes the lock exclusively, so it waits for the commands in flight
 *       and no command is between its version check and its effect. Sections are persisted
 *       ({@link CriticalSectionStore}) and restored when the shard starts, before it serves;</li>
 *   <li>the version check: {@link #run} checks {@code databaseVersion} and {@code shardVersion} while it holds the
 *       lock, then runs the command with the accepted filtering metadata ({@link OperationShardingState}).</li>
 * </ul>
 * The same holds one level up, per database (MongoDB's {@code DatabaseShardingState} with its database lock and
 * critical section, which movePrimary takes): a command whose placement the database version decides — it carries
 * {@code databaseVersion} and no sharded {@code shardVersion}, so it is about an unsharded collection or the database
 * itself — holds the database lock shared (before the collection lock) while both versions are checked, and waits
 * while the database's section blocks its access (a database-level command such as listCollections counts as a read).
 * Entering a database's section takes that lock exclusively, so it drains those commands. Commands on sharded
 * collections, which carry their chunk version, are not blocked by it: their data does not move with the primary.
 * A wait for a database's section that outlasts the timeout is StaleDbVersion.
 *
 * <p>The lock is never held while waiting for a section or while refreshing metadata from the config service: the
 * command releases it, waits or refreshes, re-acquires and checks again. A command waits for a section at most
 * {@code shardstore.shard.critical-section-timeout}, then gets StaleConfig; after one refresh a version still
 * different is StaleConfig (or StaleDbVersion). Exiting a section marks the namespace's metadata stale before it
 * lets the waiters go, so they check against the metadata the section's operation committed.
 *
 * <p>Locks are per namespace and kept for the life of the process (as MongoDB's sharding state map keeps its
 * entries). Thread-safe.
 */
@Component
public class CollectionShardingRuntime {
    /** The fail point between a command's accepted version check and its body (under the collection lock). */
    public static final String AFTER_VERSION_CHECK = "shard.afterVersionCheck";

    private static final Logger log = LoggerFactory.getLogger(CollectionShardingRuntime.class);

    private final ConcurrentMap<String, NamespaceRuntime> namespaces = new ConcurrentHashMap<>();
    /** Per database: its lock and its section (movePrimary's). */
    private final ConcurrentMap<String, NamespaceRuntime> databaseRuntimes = new ConcurrentHashMap<>();
    private final CollectionShardingState collections;
    private final DatabaseShardingState databases;
    private final ShardVersionCheck shardVersionCheck;
    private final DatabaseVersionCheck databaseVersionCheck;
    private final CriticalSectionStore store;
    private final FailPoints failPoints;
    private final Duration waitTimeout;
    /** Told the namespace of each collection critical section that begins, after it began (see {@link #onSectionEntered}). */
    private final List<Consumer<Namespace>> sectionListeners = new CopyOnWriteArrayList<>();

    public CollectionShardingRuntime(CollectionShardingState collections, DatabaseShardingState databases,
            ShardVersionCheck shardVersionCheck, DatabaseVersionCheck databaseVersionCheck, CriticalSectionStore store,
            FailPoints failPoints, ShardProperties properties) {
        this.collections = collections;
        this.databases = databases;
        this.shardVersionCheck = shardVersionCheck;
        this.databaseVersionCheck = databaseVersionCheck;
        this.store = store;
        this.failPoints = failPoints;
        this.waitTimeout = properties.criticalSectionTimeout();
        restore();
    }

    /**
     * Runs a command's {@code body} under the collection lock {@code access} asks for, once the versions it carries
     * are accepted.
     *
     * @param namespace     the collection the command is about; null for commands about no single collection
     *                      (then only the database version is checked, without a lock)
     * @param checkVersions whether {@code databaseVersion} and {@code shardVersion} are checked at all
     * @throws CommandException TypeMismatch/BadValue for malformed versions; StaleDbVersion (249); StaleConfig
     *                          (13388), also when a critical section outlasts the wait timeout; what {@code body}
     *                          throws
     * @param body          runs with {@code opCtx} decorated with the accepted {@link OperationShardingState}
     */
    public <T> T run(OperationContext opCtx, String db, @Nullable Namespace namespace, CollectionAccess access, BsonDocument command,
            boolean checkVersions, Function<OperationContext, T> body) {
        Optional<DatabaseVersion> dbVersion = checkVersions ? DatabaseVersionCheck.receivedVersion(command) : Optional.empty();
        Optional<ChunkVersion> shardVersion = checkVersions && namespace != null
                ? ShardVersionCheck.receivedVersion(command) : Optional.empty();
        NamespaceRuntime runtime = namespace == null || access == CollectionAccess.NONE ? null : runtime(namespace.full());
        boolean placedByDatabase = dbVersion.isPresent() && shardVersion.map(ChunkVersion.UNSHARDED::equals).orElse(true);
        NamespaceRuntime database = placedByDatabase ? databaseRuntime(db) : null;
        CollectionAccess databaseAccess = access == CollectionAccess.NONE ? CollectionAccess.READ : access;
        long deadline = System.nanoTime() + waitTimeout.toNanos();
        DatabaseFilteringInfo dbRefreshed = null;
        CollectionFilteringInfo collectionRefreshed = null;
        while (true) {
            Lock databaseLock = database == null ? null : database.lock.readLock();
            Lock lock = runtime == null ? null : runtime.lock(access);
            Held blocking = null;
            boolean refreshDatabase = false;
            boolean refreshCollection = false;
            if (databaseLock != null) {
                databaseLock.lock();
            }
            if (lock != null) {
                lock.lock();
            }
            try {
                Held databaseHeld = database == null ? null : database.section;
                Held held = runtime == null ? null : runtime.section;
                if (databaseHeld != null && databaseHeld.section.phase().blocks(databaseAccess)) {
                    blocking = databaseHeld;
                } else if (shardVersion.isPresent() && held != null && held.section.phase().blocks(access)) {
                    blocking = held;
                } else if (dbVersion.isPresent() && !databaseVersionCheck.decide(db, dbVersion.get(), dbRefreshed)) {
                    refreshDatabase = true;
                } else {
                    OwnershipFilter filter = null;
                    if (shardVersion.isPresent()) {
                        ShardVersionCheck.Decision decision = shardVersionCheck.decide(versioned(namespace), shardVersion.get(), collectionRefreshed);
                        refreshCollection = decision.refresh();
                        filter = decision.filter();
                    }
                    if (!refreshCollection) {
                        failPoints.hit(AFTER_VERSION_CHECK);
                        return body.apply(opCtx.with(OperationShardingState.DECORATION,
                                new OperationShardingState(shardVersion.orElse(null), dbVersion.orElse(null), filter)));
                    }
                }
            } finally {
                if (lock != null) {
                    lock.unlock();
                }
                if (databaseLock != null) {
                    databaseLock.unlock();
                }
            }
            if (blocking != null) {
                if (!blocking.awaitRelease(deadline)) {
                    throw blocking.section.database() ? databaseVersionCheck.staleInCriticalSection(db, dbVersion.get())
                            : shardVersionCheck.stale(versioned(namespace), shardVersion.get(), null);
                }
                dbRefreshed = null; // what was loaded before the section may be what it changed
                collectionRefreshed = null;
            } else if (refreshDatabase) {
                dbRefreshed = databases.refresh(db);
            } else {
                collectionRefreshed = shardVersionCheck.refresh(versioned(namespace), shardVersion.get());
            }
        }
    }

    /** Runs {@code action} holding {@code namespace}'s lock in shared mode, with no check (a getMore's batch). */
    public <T extends @Nullable Object> T shared(Namespace namespace, Supplier<T> action) {
        return holding(runtime(namespace.full()).lock.readLock(), action);
    }

    /** Runs {@code action} holding {@code namespace}'s lock exclusively, with no check (dropDatabase's drops). */
    public <T extends @Nullable Object> T exclusive(Namespace namespace, Supplier<T> action) {
        return holding(runtime(namespace.full()).lock.writeLock(), action);
    }

    /**
     * How many critical sections of {@code namespace} began since this shard started: a multi-document transaction
     * that wrote to the collection compares it at its commit with what it was before its write, as MongoDB aborts a
     * collection's unprepared transactions when a section begins (a migration's or a DDL operation's).
     */
    public long criticalSectionsEntered(Namespace namespace) {
        return runtime(namespace.full()).sectionsEntered;
    }

    /**
     * Enters {@code phase} of {@code namespace}'s critical section for the operation {@code reason}: waits for the
     * commands holding the collection lock to finish, persists the section, and from then on versioned commands
     * that the phase blocks wait. Entering again for the same reason is idempotent; phase 2 may follow phase 1 (a
     * phase-1 request while in phase 2 keeps phase 2); the first entry's expiry stands.
     *
     * @param expiry how long until the section releases itself if never exited; null: only {@link #exitCriticalSection}
     *               releases it
     * @throws CommandException ConflictingOperationInProgress (117) when the section is held for another reason
     */
    public void enterCriticalSection(Namespace namespace, CriticalSectionPhase phase, BsonDocument reason, @Nullable Duration expiry) {
        if (enter(runtime(namespace.full()), namespace.full(), "collection", phase, reason, expiry)) {
            sectionListeners.forEach(listener -> listener.accept(namespace));
        }
    }

    /**
     * Has {@code listener} told, on the thread entering it, of each collection critical section that begins (not of a
     * re-entry or a phase change), once it holds: the transaction participant aborts the collection's unprepared
     * transactions then, as MongoDB does, so that none holds row locks the section's operation waits for (a
     * migration's range deletion).
     */
    public void onSectionEntered(Consumer<Namespace> listener) {
        sectionListeners.add(listener);
    }

    /**
     * Leaves {@code namespace}'s critical section if it is held for {@code reason}: removes it from the table, marks
     * the namespace's filtering metadata stale, then lets the waiting commands re-check.
     *
     * @return false when no section was held for {@code reason} (none, or another operation's: left alone)
     */
    public boolean exitCriticalSection(Namespace namespace, BsonDocument reason) {
        return exit(runtime(namespace.full()), reason);
    }

    /**
     * Enters {@code phase} of database {@code db}'s critical section for {@code reason} (movePrimary's on the old
     * primary; see the class comment for what it blocks): waits for the commands holding the database lock, persists
     * the section (held until exited, across restarts). Idempotent as {@link #enterCriticalSection}.
     *
     * @throws CommandException ConflictingOperationInProgress (117) when the section is held for another reason
     */
    public void enterDatabaseCriticalSection(String db, CriticalSectionPhase phase, BsonDocument reason) {
        enter(databaseRuntime(db), db, "database", phase, reason, null);
    }

    /**
     * Leaves database {@code db}'s critical section if it is held for {@code reason}: removes it from the table,
     * forgets the cached database version (so the commands that waited refresh it before they are served or refused),
     * then lets them re-check.
     *
     * @return false when no section was held for {@code reason}
     */
    public boolean exitDatabaseCriticalSection(String db, BsonDocument reason) {
        return exit(databaseRuntime(db), reason);
    }

    /** Database {@code db}'s critical section, if one is held. */
    public Optional<CriticalSection> databaseCriticalSection(String db) {
        return section(databaseRuntimes.get(db));
    }

    /** {@code namespace}'s critical section, if one is held. */
    public Optional<CriticalSection> criticalSection(Namespace namespace) {
        return section(namespaces.get(namespace.full()));
    }

    /** Every critical section held, databases' and collections', by namespace (for the {@code shardingState} endpoint). */
    public List<CriticalSection> criticalSections() {
        return java.util.stream.Stream.concat(databaseRuntimes.values().stream(), namespaces.values().stream())
                .map(r -> r.section).filter(Objects::nonNull).map(h -> h.section)
                .sorted(java.util.Comparator.comparing(CriticalSection::namespace)).toList();
    }

    /** The name of the collection whose shard version {@link #run} checks: a shard version is read only with a namespace. */
    private static String versioned(@Nullable Namespace namespace) {
        return Objects.requireNonNull(namespace, "a shard version is read only for a command about a collection").full();
    }

    private static Optional<CriticalSection> section(@Nullable NamespaceRuntime runtime) {
        Held held = runtime == null ? null : runtime.section;
        return held == null ? Optional.empty() : Optional.of(held.section);
    }

    /** Enters the section; returns whether it began now (not a re-entry or a phase change). */
    private boolean enter(NamespaceRuntime runtime, String key, String kind, CriticalSectionPhase phase, BsonDocument reason,
            @Nullable Duration expiry) {
        return holding(runtime.lock.writeLock(), () -> {
            synchronized (runtime) {
                Held held = runtime.section;
                if (held != null && !held.section.heldFor(reason)) {
                    throw new CommandException(ErrorCode.ConflictingOperationInProgress, kind + " " + key
                            + " is in a critical section for " + held.section.reason().toJson() + ", not for " + reason.toJson());
                }
                if (held == null) {
                    Instant expiresAt = expiry == null ? null : Instant.now().plus(expiry);
                    runtime.section = hold(new CriticalSection(key, phase, reason, expiresAt));
                    runtime.sectionsEntered++;
                } else if (held.section.phase() != CriticalSectionPhase.COMMIT && phase == CriticalSectionPhase.COMMIT) {
                    held.section = held.section.withPhase(phase);
                } else {
                    return false;
                }
                store.save(Objects.requireNonNull(runtime.section, "held or advanced just above").section);
                return held == null;
            }
        });
    }

    private boolean exit(NamespaceRuntime runtime, BsonDocument reason) {
        Held held = runtime.section;
        return held != null && held.section.heldFor(reason) && release(runtime, held);
    }

    private void restore() {
        for (CriticalSection section : store.loadAll()) {
            if (section.expiresAt() != null && !section.expiresAt().isAfter(Instant.now())) {
                store.delete(section.namespace());
                continue;
            }
            runtimeOf(section).section = hold(section);
            log.info("restored the critical section of {} ({}, for {})", section.namespace(), section.phase(), section.reason().toJson());
        }
    }

    /** A section held in memory; with an expiry, it releases itself then. */
    private Held hold(CriticalSection section) {
        Held held = new Held(section);
        if (section.expiresAt() != null) {
            long delay = Math.max(0, Duration.between(Instant.now(), section.expiresAt()).toMillis());
            Executor later = CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS);
            later.execute(() -> {
                NamespaceRuntime runtime = runtimeOf(section);
                if (runtime.section == held && release(runtime, held)) {
                    log.warn("the critical section of {} for {} expired: nobody exited it", section.namespace(), section.reason().toJson());
                }
            });
        }
        return held;
    }

    private boolean release(NamespaceRuntime runtime, Held held) {
        // stale first: a command that finds no section must not be served by the metadata the section's operation changed
        if (held.section.database()) {
            databases.invalidate(held.section.namespace());
        } else {
            collections.markStale(held.section.namespace());
        }
        synchronized (runtime) {
            if (runtime.section != held) {
                return false;
            }
            store.delete(held.section.namespace());
            runtime.section = null;
        }
        held.released.complete(null);
        return true;
    }

    private NamespaceRuntime runtime(String namespace) {
        return namespaces.computeIfAbsent(namespace, ns -> new NamespaceRuntime());
    }

    private NamespaceRuntime databaseRuntime(String db) {
        return databaseRuntimes.computeIfAbsent(db, d -> new NamespaceRuntime());
    }

    private NamespaceRuntime runtimeOf(CriticalSection section) {
        return section.database() ? databaseRuntime(section.namespace()) : runtime(section.namespace());
    }

    private static <T extends @Nullable Object> T holding(Lock lock, Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    /** One namespace or database: its lock and its section (changed under {@code this}, read under the lock). */
    private static final class NamespaceRuntime {
        final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        volatile @Nullable Held section;
        /** How many critical sections began here since this shard started (changed under {@code this}). */
        volatile long sectionsEntered;

        Lock lock(CollectionAccess access) {
            return access == CollectionAccess.EXCLUSIVE ? lock.writeLock() : lock.readLock();
        }
    }

    /** A held section and the future its waiters wait on. */
    private static final class Held {
        volatile CriticalSection section;
        final CompletableFuture<Void> released = new CompletableFuture<>();

        Held(CriticalSection section) {
            this.section = section;
        }

        /** Waits until the section is exited, at most until {@code deadline} ({@link System#nanoTime}); false then. */
        boolean awaitRelease(long deadline) {
            try {
                released.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                return true;
            } catch (TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException e) {
                return true;
            }
        }
    }
}
