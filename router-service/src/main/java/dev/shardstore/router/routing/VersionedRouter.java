package dev.shardstore.router.routing;

import dev.shardstore.support.catalog.DatabaseEntry;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.router.peer.PeerClient;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.contracts.timeseries.BucketsNamespace;
import dev.shardstore.router.RouterProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.github.resilience4j.core.IntervalFunction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import dev.shardstore.contracts.clock.ReadConcern;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.router.transaction.RouterTransaction;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The router's versioned-request loop (mongo/src/mongo/db/s/README.md "Versioning updates"; docs/architecture.md "Shard versioning and the stale-config retry loop"): every request to a
 * shard carries the version the router used to target it — {@code shardVersion} (the shard's version in the
 * routing table, {@code ChunkVersion.UNSHARDED} for an unsharded collection) and, for the primary shard,
 * {@code databaseVersion}. When a shard answers {@code StaleConfig} (13388) the collection's cache entry is
 * marked stale, on {@code StaleDbVersion} (249) the database's entry is dropped, and the whole statement is
 * rerun on fresh routing information; at most {@code shardstore.router.max-stale-retries} attempts in all
 * (mongos: 10), then the last stale error goes to the client. The second attempt follows at once; later ones back
 * off exponentially with jitter ({@code stale-retry-backoff}, Resilience4j's {@link IntervalFunction}), since a version
 * that is still stale after a refresh means a critical section or a commit is in progress on the shard. A statement
 * reading at a snapshot is targeted by the placement at its {@code atClusterTime} ({@link RoutingTable#atClusterTime}),
 * still with today's versions, so a shard that owned a range then serves it from its history.
 *
 * <p>Meters: {@code shardstore.router.stale.retries} tagged {@code kind=database|collection};
 * {@code shardstore.router.stale.backoff}, the time spent waiting between attempts.
 */
@Component
public class VersionedRouter {
    private final DatabaseCache databases;
    private final RoutingTableCache collections;
    private final ShardRegistry shards;
    private final PeerClient client;
    private final int maxAttempts;
    private final Counter databaseRetries;
    private final Counter collectionRetries;
    private final IntervalFunction backoff;
    private final Timer backoffWaits;

    public VersionedRouter(DatabaseCache databases, RoutingTableCache collections, ShardRegistry shards, PeerClient client,
            RouterProperties properties, MeterRegistry meters) {
        this.databases = databases;
        this.collections = collections;
        this.shards = shards;
        this.client = client;
        this.maxAttempts = properties.maxStaleRetries();
        this.databaseRetries = retryCounter(meters, "database", "statements retried after StaleDbVersion");
        this.collectionRetries = retryCounter(meters, "collection", "statements retried after StaleConfig");
        this.backoff = IntervalFunction.ofExponentialRandomBackoff(properties.staleRetryBackoff(), 2.0, 0.5, properties.staleRetryBackoffMax());
        this.backoffWaits = Timer.builder("shardstore.router.stale.backoff")
                .description("waits between two attempts of a statement that met stale routing information").register(meters);
    }

    private static Counter retryCounter(MeterRegistry meters, String kind, String description) {
        return Counter.builder("shardstore.router.stale.retries").tag("kind", kind).description(description).register(meters);
    }

    /**
     * Runs a statement on {@code db.collection}: resolves its routing (creating the database first when
     * {@code createDatabase}, as MongoDB's writes do) and applies {@code body}, which targets shards through
     * {@link #send}/{@link #sendAll}; reruns {@code body} on fresh routing when it throws
     * {@link StaleRoutingException}. {@code body} must therefore not have effects outside the shards before
     * its last send (a retried write batch is resent whole, as mongos does for a batch that got no reply).
     *
     * @return {@code body}'s (non-null) result; empty when the database does not exist and {@code createDatabase}
     *         is false
     * @throws CommandException StaleConfig or StaleDbVersion when every attempt met stale routing; whatever
     *                          {@code body} or the caches throw otherwise (HostUnreachable, NetworkTimeout, ...)
     */
    public <T> Optional<T> run(OperationContext opCtx, String db, String collection, boolean createDatabase,
            Function<CollectionRouting, T> body) {
        String namespace = db + "." + collection;
        BsonTimestamp at = snapshotTimeOf(opCtx);
        return retrying(opCtx, db, namespace, createDatabase, database -> {
            RoutingTable table = table(db, collection);
            return body.apply(new CollectionRouting(namespace, database, table == null || at == null ? table : table.atClusterTime(at)));
        });
    }

    /**
     * The cluster time {@code opCtx}'s statement reads at, whose placement it is routed by (MongoDB's mongos routes a
     * snapshot read, and every statement of a snapshot transaction, by the routing table at {@code atClusterTime}):
     * its transaction's, or its own snapshot read concern's; null for a read of the latest data.
     */
    private static @Nullable BsonTimestamp snapshotTimeOf(OperationContext opCtx) {
        RouterTransaction transaction = RouterTransaction.of(opCtx);
        if (transaction != null) {
            return transaction.atClusterTime();
        }
        ReadConcern readConcern = opCtx.readConcern();
        return readConcern.isSnapshot() ? readConcern.atClusterTime() : null;
    }

    /**
     * The routing table of {@code db.collection}, or, when it has none, that of its buckets collection if that is a
     * sharded time-series collection's (mongo/src/mongo/db/s/README_timeseries.md "CRUD operations": the router looks for the
     * buckets collection's routing table); null when neither is sharded.
     */
    private @Nullable RoutingTable table(String db, String collection) {
        Namespace namespace = new Namespace(db, collection);
        return collections.get(namespace.toString())
                .or(() -> BucketsNamespace.candidate(namespace).flatMap(buckets -> collections.get(buckets.toString()))
                        .filter(table -> table.collection().isTimeseries()))
                .orElse(null);
    }

    /**
     * Runs a database-level statement (listCollections, ...) with the database's placement; the same loop as
     * {@link #run} for StaleDbVersion. {@code body} sends with {@link #sendToPrimary}.
     */
    public <T> Optional<T> runOnDatabase(OperationContext opCtx, String db, boolean createDatabase, Function<DatabaseEntry, T> body) {
        return retrying(opCtx, db, null, createDatabase, body);
    }

    /**
     * Sends {@code command} (run on database {@code db}) to {@code shard} with {@code shardVersion =
     * routing.shardVersion(shard)} and, when the collection is unsharded or {@code shard} is the primary, the
     * database version. The version fields are the router's alone: whatever a client put under those names is
     * replaced or dropped, so a client cannot make a shard refuse its own request as stale, forever.
     *
     * @return the shard's reply, which may be an ordinary error reply (write error, BadValue, ...)
     * @throws StaleRoutingException when the shard answered StaleConfig or StaleDbVersion
     * @throws CommandException      HostUnreachable/NetworkTimeout when the shard did not answer; ShardNotFound
     *                               when the shard is not registered
     */
    public BsonDocument send(OperationContext opCtx, CollectionRouting routing, String shard, String db, BsonDocument command) {
        return checked(shard, unchecked(opCtx, routing, shard, db, command, false));
    }

    /**
     * {@link #send} for a reply that goes on to the client as it is (one shard's {@code find}): its cursor batches stay
     * raw documents ({@link PeerClient#runForwarding}), not to be changed; stale replies and errors as {@link #send}.
     */
    public BsonDocument sendForwarding(OperationContext opCtx, CollectionRouting routing, String shard, String db, BsonDocument command) {
        return checked(shard, unchecked(opCtx, routing, shard, db, command, true));
    }

    /**
     * Sends a database-level command to the database's primary shard with its database version (and no shard
     * version, whatever the client sent); see {@link #send}.
     */
    public BsonDocument sendToPrimary(OperationContext opCtx, DatabaseEntry database, BsonDocument command) {
        BsonDocument versioned = shallowCopy(command);
        versioned.remove(InternalApi.SHARD_VERSION_FIELD);
        versioned.put(InternalApi.DATABASE_VERSION_FIELD, database.version().toBson());
        RouterTransaction transaction = RouterTransaction.of(opCtx);
        if (transaction != null) {
            throw new CommandException(ErrorCode.OperationNotSupportedInTransaction, "Cannot run '" + command.getFirstKey()
                    + "' in a multi-document transaction.");
        }
        return checked(database.primary(), client.run(database.primary(), shards.hostOf(database.primary()), database.name(), versioned));
    }

    /**
     * {@link #send} to each of {@code targets} concurrently (one virtual thread each; inline for one target).
     *
     * @param commandForShard the command for a given shard (e.g. its batch of an insert)
     * @return the replies keyed by shard, in the order of {@code targets}
     * @throws StaleRoutingException the first one (in {@code targets} order) once all requests have completed, so
     *                               the statement is retried only after every shard has answered
     * @throws CommandException      otherwise the first transport failure, in {@code targets} order
     */
    public Map<String, BsonDocument> sendAll(OperationContext opCtx, CollectionRouting routing, List<String> targets, String db,
            Function<String, BsonDocument> commandForShard) {
        Map<String, BsonDocument> replies = new LinkedHashMap<>();
        CommandException failure = null;
        for (Map.Entry<String, Outcome> e : exchange(opCtx, routing, targets, db, commandForShard, false).entrySet()) {
            if (e.getValue().failure() != null) {
                failure = failure != null ? failure : e.getValue().failure();
            } else {
                replies.put(e.getKey(), e.getValue().reply());
            }
        }
        replies.forEach(this::checked);
        if (failure != null) {
            throw failure;
        }
        return replies;
    }

    /**
     * Like {@link #sendAll}, but nothing is thrown: a shard's StaleConfig/StaleDbVersion reply is returned as it is
     * (test it with {@link StaleRoutingException#isStaleReply}), and a shard that did not answer (HostUnreachable,
     * NetworkTimeout, ShardNotFound) is represented by that error as its reply. So a write can keep what the other
     * shards did, report the failed shard's statements as write errors and retry only a stale shard's part (then
     * throw {@code new StaleRoutingException(shard, reply)}), and a read can kill the cursors the others opened.
     */
    public Map<String, BsonDocument> sendEach(OperationContext opCtx, CollectionRouting routing, List<String> targets, String db,
            Function<String, BsonDocument> commandForShard) {
        return sendEach(opCtx, routing, targets, db, commandForShard, false);
    }

    /**
     * {@link #sendEach} for replies whose cursor batches the router only merges and passes on (a find over several
     * shards): the batches stay raw documents ({@link PeerClient#runForwarding}), not to be changed.
     */
    public Map<String, BsonDocument> sendEachForwarding(OperationContext opCtx, CollectionRouting routing, List<String> targets, String db,
            Function<String, BsonDocument> commandForShard) {
        return sendEach(opCtx, routing, targets, db, commandForShard, true);
    }

    private Map<String, BsonDocument> sendEach(OperationContext opCtx, CollectionRouting routing, List<String> targets, String db,
            Function<String, BsonDocument> commandForShard, boolean forwarding) {
        Map<String, BsonDocument> replies = new LinkedHashMap<>();
        exchange(opCtx, routing, targets, db, commandForShard, forwarding)
                .forEach((shard, outcome) -> replies.put(shard, outcome.failure() != null ? outcome.failure().toReply() : outcome.reply()));
        return replies;
    }

    /** One shard's answer: its reply, or why it gave none. */
    private record Outcome(@Nullable BsonDocument reply, @Nullable CommandException failure) {}

    private Map<String, Outcome> exchange(OperationContext opCtx, CollectionRouting routing, List<String> targets, String db,
            Function<String, BsonDocument> commandForShard, boolean forwarding) {
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        if (targets.size() == 1) {
            String shard = targets.get(0);
            outcomes.put(shard, attempt(() -> unchecked(opCtx, routing, shard, db, commandForShard.apply(shard), forwarding)));
            return outcomes;
        }
        List<Future<Outcome>> futures = new ArrayList<>(targets.size());
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String shard : targets) {
                futures.add(executor.submit(() -> attempt(() -> unchecked(opCtx, routing, shard, db, commandForShard.apply(shard), forwarding))));
            }
        } // close() waits for every request
        for (int i = 0; i < targets.size(); i++) {
            try {
                outcomes.put(targets.get(i), futures.get(i).get());
            } catch (ExecutionException e) {
                outcomes.put(targets.get(i), new Outcome(null, new CommandException(ErrorCode.InternalError,
                        "request to " + targets.get(i) + " failed: " + e.getCause(), e.getCause())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CommandException(ErrorCode.HostUnreachable, "interrupted while waiting for " + targets.get(i), e);
            }
        }
        return outcomes;
    }

    private static Outcome attempt(Supplier<BsonDocument> request) {
        try {
            return new Outcome(request.get(), null);
        } catch (CommandException e) {
            return new Outcome(null, e);
        }
    }

    private <T> Optional<T> retrying(OperationContext opCtx, String db, @Nullable String namespace, boolean createDatabase, Function<DatabaseEntry, T> body) {
        StaleRoutingException last = null;
        for (int attempt = 0; attempt < maxAttempts; attempt++) {
            if (attempt >= 2) {
                backOff(attempt - 1);
            }
            opCtx.checkForInterrupt(); // the client's maxTimeMS, and a killOp, bound the retries too
            Optional<DatabaseEntry> database = createDatabase ? Optional.of(databases.getOrCreate(db)) : databases.get(db);
            if (database.isEmpty()) {
                return Optional.empty();
            }
            try {
                return Optional.of(Objects.requireNonNull(body.apply(database.get()), "statement result"));
            } catch (StaleRoutingException e) {
                last = e;
                markStale(db, namespace, e);
            }
        }
        // maxAttempts >= 1 (RouterProperties checks it), and each attempt either returned or set last
        CommandException error = Objects.requireNonNull(last, "no attempt ran").toCommandException();
        throw new CommandException(error.code(), "routing information for " + (namespace != null ? namespace : "database '" + db + "'")
                + " was still stale after " + maxAttempts + " attempts: " + error.getMessage(), error.extraInfo());
    }

    /** Sleeps before the backed-off retry numbered {@code retry}: 1 before the third attempt, 2 before the fourth, ... */
    private void backOff(int retry) {
        long millis = backoff.apply(retry);
        long start = System.nanoTime();
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException(ErrorCode.Interrupted, "interrupted while waiting to retry a statement on stale routing information", e);
        } finally {
            backoffWaits.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }

    private void markStale(String db, @Nullable String namespace, StaleRoutingException e) {
        if (e.isDatabaseVersion()) {
            databaseRetries.increment();
            databases.invalidate(db);
            return;
        }
        collectionRetries.increment();
        StaleConfig details = e.staleConfig();
        // The shard names the namespace it checked; it is the statement's own unless the statement spans several.
        String stale = details != null ? details.namespace() : namespace;
        if (stale != null) {
            collections.onStaleConfig(stale, details);
        }
    }

    /** The versioned request, its reply returned whatever it is; raw cursor batches when {@code forwarding}. */
    private BsonDocument unchecked(OperationContext opCtx, CollectionRouting routing, String shard, String db, BsonDocument command,
            boolean forwarding) {
        BsonDocument versioned = versioned(routing, shard, command);
        String host = shards.hostOf(shard);
        RouterTransaction transaction = RouterTransaction.of(opCtx);
        if (transaction == null) {
            return forwarding ? client.runForwarding(shard, host, db, versioned) : client.run(shard, host, db, versioned);
        }
        BsonDocument statement = transaction.forParticipant(shard, versioned);
        BsonDocument reply = forwarding ? client.runForwarding(shard, host, db, statement) : client.run(shard, host, db, statement);
        transaction.replied(shard, reply);
        return reply;
    }

    /** {@code command} with the router's versions for {@code shard} (see {@link #send}). */
    private static BsonDocument versioned(CollectionRouting routing, String shard, BsonDocument command) {
        BsonDocument versioned = shallowCopy(command);
        versioned.put(InternalApi.SHARD_VERSION_FIELD, routing.shardVersion(shard).toBson());
        if (!routing.isSharded() || shard.equals(routing.database().primary())) {
            versioned.put(InternalApi.DATABASE_VERSION_FIELD, routing.database().version().toBson());
        } else {
            versioned.remove(InternalApi.DATABASE_VERSION_FIELD);
        }
        return versioned;
    }

    private BsonDocument checked(String shard, BsonDocument reply) {
        if (StaleRoutingException.isStaleReply(reply)) {
            throw new StaleRoutingException(shard, reply);
        }
        return reply;
    }

    /** A new top-level document sharing the (possibly large) values of {@code command}. */
    private static BsonDocument shallowCopy(BsonDocument command) {
        BsonDocument copy = new BsonDocument();
        copy.putAll(command);
        return copy;
    }
}
