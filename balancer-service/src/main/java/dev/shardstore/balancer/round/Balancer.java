package dev.shardstore.balancer.round;

import dev.shardstore.balancer.BalancerProperties;
import dev.shardstore.balancer.cluster.ClusterStatistics;
import dev.shardstore.balancer.cluster.PeerCommands;
import dev.shardstore.balancer.policy.BalancerAction;
import dev.shardstore.balancer.policy.BalancerPolicy;
import dev.shardstore.balancer.policy.ClusterSnapshot;
import dev.shardstore.balancer.policy.RoundPlan;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.transport.http.CommandClient;
import dev.shardstore.transport.membership.ClusterKey;
import org.springframework.beans.factory.ObjectProvider;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The balancer thread (mongo/src/mongo/db/s/README.md "Auto-balancing"): a round {@code round-interval} after the previous one ends, or
 * {@code short-round-interval} after one that balanced something ({@link #pauseAfter}).
 * A round reads a {@link ClusterSnapshot}, asks the {@link BalancerPolicy}, runs the zone-boundary splits one after the
 * other through the config service ({@code _configsvrSplitChunk}), then the auto-merger's merges one after the other
 * ({@code splitVector} on the owning shard, {@code _configsvrCommitChunksMerge}), then every migration at once (they are on disjoint
 * shards) through {@code _configsvrMoveRange}, and is over when all of them answered. Nothing is persisted here: a balancer
 * killed mid-round leaves each migration to the migration protocol's own recovery on its donor, and the next round starts
 * from the catalog as it then is. Rounds never overlap ({@code balancerStop} waits for the one in progress, as MongoDB's).
 *
 * <p>Meters: {@code shardstore.balancer.rounds}, {@code shardstore.balancer.moves{outcome}},
 * {@code shardstore.balancer.splits{outcome}}, {@code shardstore.balancer.merges{outcome}}, {@code shardstore.balancer.round.failures}, {@code shardstore.balancer.jumbo.marked}.
 */
@Component
public class Balancer {
    private static final Logger log = LoggerFactory.getLogger(Balancer.class);
    private static final String CONFIG = "config";
    private final ClusterStatistics statistics;
    private final BalancerPolicy policy;
    private final PeerCommands longRunning;
    private final String configUrl;
    private final BalancerProperties properties;
    private final MeterRegistry meters;
    private final Clock clock;
    private final ReentrantLock roundLock = new ReentrantLock();
    private final AtomicBoolean inRound = new AtomicBoolean();
    private final AtomicLong rounds = new AtomicLong();
    private final Deque<RoundReport> history = new ArrayDeque<>();
    private final ExecutorService migrations = Executors.newVirtualThreadPerTaskExecutor();
    /** Set once the service is ready ({@link #startRounds}); null before. */
    private volatile @Nullable ScheduledExecutorService scheduler;

    /**
     * The service's balancer: its round's calls wait up to {@code migration-timeout} for an answer, and prove membership
     * with the cluster key when there is one.
     */
    @Autowired
    public Balancer(ClusterStatistics statistics, ServiceSupportProperties support, BalancerProperties properties, MeterRegistry meters,
            Clock clock, ObjectProvider<ClusterKey> clusterKey) {
        this(statistics, new CommandClient(support.peerConnectTimeout(), properties.migrationTimeout(), null, clusterKey.getIfAvailable())::runChecked,
                support.configUrl(), properties, meters, clock);
    }

    /**
     * @param longRunning how a round calls the config service and the shards (its splits, merges and migrations)
     * @param clock       what a round's start and the durations of the round and of each action are read from
     */
    public Balancer(ClusterStatistics statistics, PeerCommands longRunning, String configUrl, BalancerProperties properties, MeterRegistry meters,
            Clock clock) {
        this.statistics = statistics;
        this.policy = new BalancerPolicy(properties.snapshotHistoryWindow());
        this.longRunning = longRunning;
        this.configUrl = configUrl;
        this.properties = properties;
        this.meters = meters;
        this.clock = clock;
    }

    /** Starts the rounds once the service is ready (not before: its peers may still be starting with it). */
    @EventListener(ApplicationReadyEvent.class)
    public void startRounds() {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("balancer").daemon().factory());
        scheduler = executor;
        executor.schedule(() -> roundThenScheduleNext(executor), properties.roundInterval().toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * The pause between the end of {@code round} and the start of the next ({@code mongo/src/mongo/db/s/balancer/balancer.cpp}: MongoDB's balancer thread sleeps
     * {@code kShortBalanceRoundInterval}, 1 s, after a round that balanced something, and
     * {@code kBalanceRoundDefaultInterval}, 10 s, otherwise).
     * <ul>
     *   <li>{@code short-round-interval} (or {@code round-interval} if that is shorter) when one of its splits, merges or
     *       migrations succeeded, so that an imbalanced cluster converges at the pace of its migrations, not one
     *       migration per round interval;</li>
     *   <li>{@code round-interval} when the round did nothing, failed, or every action it tried failed (a failing
     *       cluster is not hammered).</li>
     * </ul>
     */
    static Duration pauseAfter(RoundReport round, BalancerProperties properties) {
        boolean balanced = round.outcomes().stream().anyMatch(MigrationOutcome::ok);
        return balanced && properties.shortRoundInterval().compareTo(properties.roundInterval()) < 0 ? properties.shortRoundInterval()
                : properties.roundInterval();
    }

    /**
     * Runs one round now (waiting for a round in progress to end first) and returns its report.
     * A failure to read the snapshot is reported in the round, never thrown.
     */
    public RoundReport runRound() {
        roundLock.lock();
        try {
            inRound.set(true);
            return round();
        } finally {
            inRound.set(false);
            roundLock.unlock();
        }
    }

    /** The next round's decisions, without acting on them ({@code balancerPlan}). */
    public RoundPlan plan() {
        return policy.plan(statistics.snapshot());
    }

    /** Blocks until no round is in progress ({@code balancerStop}), at most {@code timeout}; whether it ended. */
    public boolean awaitRoundEnd(Duration timeout) throws InterruptedException {
        if (!roundLock.tryLock(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return false;
        }
        roundLock.unlock();
        return true;
    }

    /** Whether a round is running ({@code balancerStatus.inBalancerRound}). */
    public boolean inRound() {
        return inRound.get();
    }

    /**
     * Rounds the cluster's balancers have run ({@code balancerStatus.numBalancerRounds}), counted on the config service so
     * that the count survives a restart of this service.
     *
     * @throws CommandException HostUnreachable / NetworkTimeout when the config service does not answer
     */
    public long numRounds() {
        long count = longRunning.run(CONFIG, configUrl, "admin", new BsonDocument("_configsvrBalancerRound", new org.bson.BsonInt32(1)))
                .getNumber("numBalancerRounds").longValue();
        rounds.accumulateAndGet(count, Math::max);
        return count;
    }

    /** The number of the last round this process started or saw counted (for the actuator endpoint; no remote call). */
    public long lastRoundNumber() {
        return rounds.get();
    }

    /** The last rounds, newest first, as documents. */
    public synchronized BsonArray recentRounds() {
        return new BsonArray(history.stream().map(RoundReport::toBson).map(d -> (org.bson.BsonValue) d).toList());
    }

    /** One round, then the next one scheduled after {@link #pauseAfter} (the full interval when the round threw). */
    private void roundThenScheduleNext(ScheduledExecutorService executor) {
        Duration pause = properties.roundInterval();
        try {
            pause = pauseAfter(runRound(), properties);
        } catch (RuntimeException e) {
            log.warn("balancer round failed", e);
        }
        try {
            executor.schedule(() -> roundThenScheduleNext(executor), pause.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // shut down meanwhile: no more rounds
        }
    }

    private RoundReport round() {
        Instant started = clock.instant();
        long number = rounds.get() + 1;
        RoundPlan plan = new RoundPlan(List.of());
        List<MigrationOutcome> outcomes = new ArrayList<>();
        String error = null;
        try {
            number = startRound();
            ClusterSnapshot snapshot = statistics.snapshot();
            plan = policy.plan(snapshot);
            boolean waitForDelete = snapshot.settings().waitForDelete();
            for (BalancerAction.Split split : plan.splits()) {
                outcomes.add(split(split));
            }
            for (BalancerAction.Merge merge : plan.merges()) {
                outcomes.add(merge(merge));
            }
            List<Future<MigrationOutcome>> running = plan.migrations().stream().map(m -> migrations.submit(() -> move(m, waitForDelete))).toList();
            for (Future<MigrationOutcome> migration : running) {
                outcomes.add(migration.get());
            }
        } catch (CommandException e) {
            error = e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            error = "interrupted";
        } catch (java.util.concurrent.ExecutionException e) {
            error = String.valueOf(e.getCause());
        }
        RoundReport report = new RoundReport(number, started, millisSince(started), plan, outcomes, error);
        remember(report);
        meters.counter("shardstore.balancer.rounds").increment();
        if (report.error() != null) {
            meters.counter("shardstore.balancer.round.failures").increment();
            log.warn("balancer round {} failed: {}", number, report.error());
        }
        if (!plan.migrations().isEmpty() || !plan.splits().isEmpty() || !plan.merges().isEmpty() || report.error() != null) {
            logAction(report);
        }
        return report;
    }

    /** Counts the round on the config service ({@code _configsvrBalancerRound start}); its number. */
    private long startRound() {
        long number = longRunning.run(CONFIG, configUrl, "admin", new BsonDocument("_configsvrBalancerRound", new org.bson.BsonInt32(1))
                .append("start", BsonBoolean.TRUE)).getNumber("numBalancerRounds").longValue();
        rounds.accumulateAndGet(number, Math::max);
        return number;
    }

    private MigrationOutcome split(BalancerAction.Split split) {
        return timed(split, "shardstore.balancer.splits", () -> {
            for (BsonDocument point : split.splitPoints()) {
                config(new BsonDocument("_configsvrSplitChunk", new BsonString(split.namespace())).append("middle", point));
            }
        });
    }

    /**
     * The auto-merger's merge of a run of settled chunks: the owning shard's {@code splitVector} over the run with the
     * collection's maximum chunk size gives the points that cut it into chunk-sized pieces, and each group of chunks between
     * two of them becomes one chunk through {@code _configsvrCommitChunksMerge} (which refuses unless the chunks still
     * exactly cover the range on that shard).
     */
    private MigrationOutcome merge(BalancerAction.Merge merge) {
        return timed(merge, "shardstore.balancer.merges", () -> {
            String host = statistics.hosts().get(merge.shard());
            if (host == null) {
                throw new CommandException(ErrorCode.ShardNotFound, "shard " + merge.shard() + " is no longer registered");
            }
            ChunkRange run = merge.range();
            BsonDocument splitVector = new BsonDocument("splitVector", new BsonString(merge.namespace()))
                    .append("keyPattern", merge.keyPattern().pattern()).append("min", run.min()).append("max", run.max())
                    .append("maxChunkSizeBytes", new BsonInt64(merge.maxChunkSizeBytes()));
            List<BsonDocument> splitKeys = longRunning.run(merge.shard(), host, Namespace.parse(merge.namespace()).db(), splitVector)
                    .getArray("splitKeys").stream().map(org.bson.BsonValue::asDocument).toList();
            for (ChunkRange group : merge.groupsWithin(splitKeys)) {
                config(new BsonDocument("_configsvrCommitChunksMerge", new BsonString(merge.namespace()))
                        .append("collEpoch", new BsonObjectId(merge.epoch())).append("collTimestamp", merge.timestamp())
                        .append("chunkRange", group.toBson()).append("shard", new BsonString(merge.shard())));
            }
        });
    }

    /** @param waitForDelete the {@code _waitForDelete} setting: the move answers once the donor deleted the moved range */
    private MigrationOutcome move(BalancerAction.Migration migration, boolean waitForDelete) {
        return timed(migration, "shardstore.balancer.moves", () -> {
            BsonDocument command = new BsonDocument("_configsvrMoveRange", new BsonString(migration.namespace()))
                    .append("toShard", new BsonString(migration.to())).append("min", migration.chunk().min());
            if (migration.wholeChunk()) {
                command.append("max", migration.chunk().max());
            }
            command.append("waitForDelete", BsonBoolean.valueOf(waitForDelete));
            try {
                config(command.append("forceJumbo", BsonBoolean.valueOf(migration.forceJumbo())));
            } catch (CommandException e) {
                if (e.code() == ErrorCode.ChunkTooBig) {
                    splitOrMarkJumbo(migration);
                }
                throw e;
            }
        });
    }

    /**
     * mongo/src/mongo/db/s/README.md "Jumbo Chunks" (MongoDB's {@code _splitOrMarkJumbo}): a migration refused because the chunk is too big
     * splits the chunk at its median ({@code _configsvrSplitChunk bounds}), so the next round can move the halves; a chunk
     * that cannot be split (one repeated key) is marked jumbo, and no later round schedules it again (until clearJumboFlag).
     * Best effort: a failure is only logged, the next refusal retries.
     */
    private void splitOrMarkJumbo(BalancerAction.Migration migration) {
        try {
            config(new BsonDocument("_configsvrSplitChunk", new BsonString(migration.namespace()))
                    .append("bounds", new BsonArray(List.of(migration.chunk().min(), migration.chunk().max()))));
            meters.counter("shardstore.balancer.splits", "outcome", "ok").increment();
        } catch (CommandException e) {
            if (e.code() != ErrorCode.CannotSplit) {
                log.info("could not split the too big chunk {} of {}: {}", migration.chunk(), migration.namespace(), e.getMessage());
                return;
            }
            try {
                config(new BsonDocument("_configsvrSetJumboFlag", new BsonString(migration.namespace())).append("min", migration.chunk().min())
                        .append("jumbo", BsonBoolean.TRUE));
                meters.counter("shardstore.balancer.jumbo.marked").increment();
            } catch (CommandException markFailed) {
                log.info("could not mark the chunk {} of {} jumbo: {}", migration.chunk(), migration.namespace(), markFailed.getMessage());
            }
        }
    }

    private MigrationOutcome timed(BalancerAction action, String meter, Runnable call) {
        Instant start = clock.instant();
        try {
            call.run();
            meters.counter(meter, "outcome", "ok").increment();
            return new MigrationOutcome(action, true, millisSince(start), null);
        } catch (CommandException e) {
            meters.counter(meter, "outcome", "failed").increment();
            log.info("balancer {} failed: {}", action.toBson().toJson(), e.getMessage());
            return new MigrationOutcome(action, false, millisSince(start), e.getMessage());
        }
    }

    private long millisSince(Instant start) {
        return Duration.between(start, clock.instant()).toMillis();
    }

    private void config(BsonDocument command) {
        longRunning.run(CONFIG, configUrl, "admin", command);
    }

    /** {@code config.actionlog} {@code balancer.round}; best effort, as MongoDB's (a failed write is only logged). */
    private void logAction(RoundReport report) {
        try {
            config(new BsonDocument("_configsvrLogAction", new BsonString("balancer.round")).append("server", new BsonString(properties.name()))
                    .append("details", report.actionLogDetails()));
        } catch (CommandException e) {
            log.info("could not write the balancer.round action log entry: {}", e.getMessage());
        }
    }

    private synchronized void remember(RoundReport report) {
        history.addFirst(report);
        while (history.size() > properties.history()) {
            history.removeLast();
        }
    }

    /** Stops the rounds; migrations in flight are left to their donors' recovery. */
    @jakarta.annotation.PreDestroy
    public void shutdown() {
        ScheduledExecutorService executor = scheduler;
        if (executor != null) {
            executor.shutdownNow();
        }
        migrations.shutdownNow();
    }
}
