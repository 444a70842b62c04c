package dev.shardstore.shard;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Component;

/**
 * The shard's Micrometer meters (docs/architecture.md "Observability"):
 * <ul>
 *   <li>{@code shardstore.shard.command} — timer per command, tags {@code command} (the command's
 *       registered name) and {@code outcome} ({@code ok} or the MongoDB code name of the error), published as a
 *       percentile histogram (buckets from 1 ms to 10 s) so that a reader can add the buckets up over tags and over an
 *       interval and estimate the shard's p99 of that interval, as the console's operations charts do (client-side
 *       percentiles cannot be added up);</li>
 *   <li>{@code shardstore.shard.stale.db.version} — StaleDbVersion answers;</li>
 *   <li>{@code shardstore.shard.db.version.refreshes} — loads of a database's filtering information
 *       from the config service;</li>
 *   <li>{@code shardstore.shard.stale.config} — StaleConfig answers;</li>
 *   <li>{@code shardstore.shard.collection.refreshes} — loads of a collection's filtering metadata;</li>
 *   <li>{@code shardstore.shard.migration.phase} — timer per chunk migration phase, tags {@code role} ({@code donor} /
 *       {@code recipient}) and {@code phase} (donor: {@code start clone criticalSection commit cleanup total}; recipient:
 *       {@code prepare clone catchup commit total});</li>
 *   <li>{@code shardstore.shard.migrations} — finished migrations, tags {@code role} and {@code outcome}
 *       ({@code committed}, {@code aborted}, {@code failed});</li>
 *   <li>{@code shardstore.shard.range.deletions} — orphaned documents deleted by the range deleter;</li>
 *   <li>{@code shardstore.shard.range.deletion.rate} — documents per second of each finished range deletion task, from its
 *       first batch to its last, the pauses between batches included;</li>
 *   <li>{@code shardstore.shard.autosplits} — finished auto-split tasks, tag {@code outcome} ({@code split}, {@code jumbo},
 *       {@code tooSmall}, {@code stale}, {@code disabled}, {@code failed}).</li>
 * </ul>
 */
@Component
public class ShardMetrics {
    /** Timer name; Prometheus shows {@code shardstore_shard_command_seconds}. */
    public static final String COMMAND_TIMER = "shardstore.shard.command";
    /** Counter name; Prometheus shows {@code shardstore_shard_stale_db_version_total}. */
    public static final String STALE_DB_VERSION = "shardstore.shard.stale.db.version";
    /** Counter name; Prometheus shows {@code shardstore_shard_db_version_refreshes_total}. */
    public static final String DB_VERSION_REFRESHES = "shardstore.shard.db.version.refreshes";
    /** Counter name; Prometheus shows {@code shardstore_shard_stale_config_total}. */
    public static final String STALE_CONFIG = "shardstore.shard.stale.config";
    /** Counter name; Prometheus shows {@code shardstore_shard_collection_refreshes_total}. */
    public static final String COLLECTION_REFRESHES = "shardstore.shard.collection.refreshes";
    /** Timer name; Prometheus shows {@code shardstore_shard_migration_phase_seconds}. */
    public static final String MIGRATION_PHASE = "shardstore.shard.migration.phase";
    /** Counter name; Prometheus shows {@code shardstore_shard_migrations_total}. */
    public static final String MIGRATIONS = "shardstore.shard.migrations";
    /** Counter name; Prometheus shows {@code shardstore_shard_range_deletions_total}. */
    public static final String RANGE_DELETIONS = "shardstore.shard.range.deletions";

    /** Distribution summary name; Prometheus shows {@code shardstore_shard_range_deletion_rate_documents_per_second}. */
    public static final String RANGE_DELETION_RATE = "shardstore.shard.range.deletion.rate";

    /** Counter name; Prometheus shows {@code shardstore_shard_autosplits_total}. */
    public static final String AUTOSPLITS = "shardstore.shard.autosplits";

    /** The command histogram's lowest and highest bucket bounds (Micrometer's few dozen timer buckets between them). */
    private static final Duration COMMAND_HISTOGRAM_MIN = Duration.ofMillis(1);
    private static final Duration COMMAND_HISTOGRAM_MAX = Duration.ofSeconds(10);

    private final MeterRegistry registry;
    private final Counter staleDbVersion;
    private final Counter refreshes;
    private final Counter staleConfig;
    private final Counter collectionRefreshes;

    public ShardMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.staleDbVersion = Counter.builder(STALE_DB_VERSION)
                .description("Commands answered StaleDbVersion").register(registry);
        this.refreshes = Counter.builder(DB_VERSION_REFRESHES)
                .description("Database filtering information loads from the config service").register(registry);
        this.staleConfig = Counter.builder(STALE_CONFIG)
                .description("Commands answered StaleConfig").register(registry);
        this.collectionRefreshes = Counter.builder(COLLECTION_REFRESHES)
                .description("Collection filtering metadata loads from the config service").register(registry);
    }

    /**
     * Records one command's duration.
     *
     * @param command the command's registered name
     * @param outcome {@code ok} or the error's MongoDB code name
     */
    public void recordCommand(String command, String outcome, long nanos) {
        Timer.builder(COMMAND_TIMER)
                .description("Shard command latency")
                .publishPercentileHistogram()
                .minimumExpectedValue(COMMAND_HISTOGRAM_MIN)
                .maximumExpectedValue(COMMAND_HISTOGRAM_MAX)
                .tag("command", command)
                .tag("outcome", outcome)
                .register(registry)
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Counts one StaleDbVersion answer. */
    public void staleDbVersion() {
        staleDbVersion.increment();
    }

    /** Counts one load of a database's filtering information from the config service. */
    public void dbVersionRefresh() {
        refreshes.increment();
    }

    /** Counts one StaleConfig answer. */
    public void staleConfig() {
        staleConfig.increment();
    }

    /**
     * Records how long one phase of a chunk migration took on this shard.
     *
     * @param role  {@code donor} or {@code recipient}
     * @param phase the phase's name (see the class comment)
     */
    public void migrationPhase(String role, String phase, long nanos) {
        Timer.builder(MIGRATION_PHASE).description("Chunk migration phase durations").tag("role", role).tag("phase", phase)
                .register(registry).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Counts one finished migration with its outcome ({@code committed}, {@code aborted}, {@code failed}). */
    public void migrationFinished(String role, String outcome) {
        Counter.builder(MIGRATIONS).description("Finished chunk migrations").tag("role", role).tag("outcome", outcome)
                .register(registry).increment();
    }

    /** Counts documents the range deleter deleted. */
    public void orphansDeleted(long documents) {
        Counter.builder(RANGE_DELETIONS).description("Orphaned documents deleted by the range deleter").register(registry)
                .increment(documents);
    }

    /**
     * Records the rate of one finished range deletion task that deleted something.
     *
     * @param documents how many documents it deleted, positive
     * @param nanos     from its first batch to the end of its last, pauses included, positive
     */
    public void rangeDeletionFinished(long documents, long nanos) {
        DistributionSummary.builder(RANGE_DELETION_RATE).description("Documents per second of each finished range deletion task")
                .baseUnit("documents_per_second").register(registry).record(documents * 1e9 / nanos);
    }

    /** Counts one load of a collection's filtering metadata from the config service. */
    public void collectionRefresh() {
        collectionRefreshes.increment();
    }

    /** Counts one finished auto-split task with its outcome (see the class comment). */
    public void autosplit(String outcome) {
        Counter.builder(AUTOSPLITS).description("Finished auto-split tasks").tag("outcome", outcome).register(registry).increment();
    }
}
