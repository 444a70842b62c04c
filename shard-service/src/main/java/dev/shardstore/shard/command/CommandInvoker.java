package dev.shardstore.shard.command;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.DatabaseNames;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.support.session.LogicalSessionCache;
import dev.shardstore.shard.ShardMetrics;
import dev.shardstore.shard.storage.CommitDurability;
import dev.shardstore.shard.storage.OplogTimeReservations;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import dev.shardstore.shard.transaction.SnapshotReads;
import dev.shardstore.shard.transaction.TransactionParticipant;
import dev.shardstore.shard.view.ViewCatalog;
import java.util.Set;
import dev.shardstore.shard.versioning.CollectionAccess;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;
import org.bson.BsonTimestamp;
import dev.shardstore.support.operation.OperationContext;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * What runs around every shard command: validating the database name, refusing a write concern {@code j} that the
 * shard's PostgreSQL would not honour ({@link CommitDurability}), placing the command's {@code lsid} in the
 * shard's logical session cache, waiting for the writes up to the command's
 * {@code readConcern.afterClusterTime} ({@link OplogTimeReservations#awaitDurable}, before any lock is taken, for at most
 * {@link #AFTER_CLUSTER_TIME_WAIT}), then {@link CollectionShardingRuntime} (the collection lock the command declared,
 * the database and shard version checks under it, the wait for a critical section, the accepted filtering metadata the
 * command runs with) — inside the session's transaction for a transaction's statement ({@link TransactionParticipant}) —
 * and the per-command timer.
 */
@Component
public class CommandInvoker {
    /** How long a read waits for the writes before its afterClusterTime: they are commits already under way. */
    static final Duration AFTER_CLUSTER_TIME_WAIT = Duration.ofSeconds(30);

    /** The reads a view answers, through the router, as an aggregate of its resolved pipeline. */
    private static final Set<String> VIEW_READS = Set.of("find", "aggregate", "count", "distinct", "explain");
    /** The commands that prepare or end a transaction: they carry its session fields but are not statements of it. */
    private static final Set<String> TRANSACTION_CONTROL = Set.of("commitTransaction", "abortTransaction", "prepareTransaction",
            "coordinateCommitTransaction");

    private final CollectionShardingRuntime runtime;
    private final ShardMetrics metrics;
    private final OplogTimeReservations clock;
    private final TimeseriesCollections timeseries;
    private final LogicalSessionCache sessions;
    private final ViewCatalog views;
    private final TransactionParticipant transactions;
    private final CommitDurability durability;
    private final SnapshotReads snapshots;

    public CommandInvoker(CollectionShardingRuntime runtime, ShardMetrics metrics, OplogTimeReservations clock, TimeseriesCollections timeseries,
            LogicalSessionCache sessions, ViewCatalog views, TransactionParticipant transactions, CommitDurability durability,
            SnapshotReads snapshots) {
        this.snapshots = snapshots;
        this.transactions = transactions;
        this.sessions = sessions;
        this.durability = durability;
        this.runtime = runtime;
        this.metrics = metrics;
        this.clock = clock;
        this.timeseries = timeseries;
        this.views = views;
    }

    /**
     * Runs {@code body} for command {@code name} on {@code db}, timing it with its outcome.
     *
     * @param checkVersions whether the {@code databaseVersion} and {@code shardVersion} the command carries are checked
     * @param namespace     the collection the command is about (locked per {@code access}, and whose
     *                      {@code shardVersion} is checked), or null for commands that are not about one collection;
     *                      asked once the database name is valid
     * @param servesTimeseries whether the command handles a time-series {@code namespace} itself (its buckets collection
     *                      is then the one locked and whose {@code shardVersion} is checked); when not, it is refused
     * @param servesViews      whether the command handles a view {@code namespace} itself (create, drop); when not, a read
     *                         of a view is answered with CommandOnShardedViewNotSupportedOnMongod (169) carrying
     *                         {@code resolvedView: {ns, pipeline}} for the router to run, anything else is refused with
     *                         CommandNotSupportedOnView (166) — MongoDB's protocol between mongos and the primary shard
     * @throws CommandException InvalidNamespace for a bad database name, a bad readConcern, MaxTimeMSExpired when the
     *                          writes before afterClusterTime do not finish, StaleDbVersion, StaleConfig, NotImplemented
     *                          (238) for a command that does not serve time-series collections sent to one, or what
     *                          {@code body} throws
     */
    BsonDocument invoke(OperationContext opCtx, String name, String db, BsonDocument command, boolean checkVersions,
            Supplier<@Nullable Namespace> namespace, CollectionAccess access, boolean servesTimeseries, boolean servesViews,
            Function<OperationContext, BsonDocument> body) {
        long start = System.nanoTime();
        String outcome = "InternalError";
        try {
            DatabaseNames.validate(db);
            durability.requireHonoured(command);
            opCtx.session().ifPresent(session -> sessions.vivify(session.lsid()));
            BsonTimestamp after = opCtx.readConcern().afterClusterTime();
            if (after != null) {
                clock.awaitDurable(after, AFTER_CLUSTER_TIME_WAIT);
            }
            Namespace target = namespace.get();
            // MongoDB refuses a write to a time-series collection in a transaction
            if (target != null && TransactionParticipant.isWrite(name) && TransactionParticipant.isStatement(opCtx)
                    && timeseries.buckets(target).isPresent()) {
                throw new CommandException(ErrorCode.OperationNotSupportedInTransaction, "Cannot " + name + " the time-series collection "
                        + target + " in a multi-document transaction");
            }
            Function<OperationContext, BsonDocument> guarded = servesTimeseries || target == null ? body : checked -> {
                if (timeseries.buckets(target).isPresent()) {
                    throw new CommandException(ErrorCode.NotImplemented, name + " on the time-series collection " + target
                            + " is not supported");
                }
                return body.apply(checked);
            };
            if (!servesViews && target != null) {
                Function<OperationContext, BsonDocument> inner = guarded;
                guarded = checked -> {
                    if (views.find(target).isPresent()) {
                        throw onView(name, target);
                    }
                    return inner.apply(checked);
                };
            }
            // A time-series collection is versioned, locked and filtered as its buckets collection, which is what
            // config.collections shards (mongo/src/mongo/db/s/README_timeseries.md "CRUD operations")
            Namespace versioned = servesTimeseries && target != null && timeseries.buckets(target).isPresent()
                    ? TimeseriesCollections.bucketsOf(target) : target;
            Function<OperationContext, BsonDocument> checkedBody = guarded;
            Function<OperationContext, BsonDocument> versionedBody = opCtxIn -> runtime.run(opCtxIn, db, versioned, access, command,
                    checkVersions, checkedBody);
            boolean statement = TransactionParticipant.isStatement(opCtx) && !TRANSACTION_CONTROL.contains(name);
            BsonDocument reply = statement ? transactions.runStatement(opCtx, name, versioned, command, versionedBody)
                    : opCtx.readConcern().isSnapshot() ? snapshots.read(opCtx, name, versionedBody) : versionedBody.apply(opCtx);
            outcome = "ok";
            return reply;
        } catch (CommandException e) {
            outcome = e.code().codeName();
            throw e;
        } finally {
            metrics.recordCommand(name, outcome, System.nanoTime() - start);
        }
    }

    /** The error for command {@code name} sent to the view {@code view}. */
    private CommandException onView(String name, Namespace view) {
        if (VIEW_READS.contains(name)) {
            return new CommandException(ErrorCode.CommandOnShardedViewNotSupportedOnMongod, "Resolved views on sharded collections must be"
                    + " executed by mongos", new BsonDocument("resolvedView", views.resolve(view)));
        }
        return new CommandException(ErrorCode.CommandNotSupportedOnView, "Namespace " + view.full() + " is a view, not a collection");
    }
}
