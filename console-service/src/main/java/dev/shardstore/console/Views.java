package dev.shardstore.console;

import dev.shardstore.console.meters.MeterSampler;
import dev.shardstore.console.meters.ShardMeters;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The immutable views the pages render, one record per page and its parts. Each page's view carries the
 * {@link ClusterError}s met while reading it: what could be read is shown, and what could not is named with its code.
 */
public final class Views {
    private Views() {}

    /**
     * A shard as {@code listShards} names it, with its health and what it owns ({@code $shardedDataDistribution},
     * summed over the sharded collections).
     *
     * @param name      the shard's id, e.g. {@code shard1}
     * @param host      its HTTP base URL
     * @param health    its Actuator health
     * @param documents owned documents of sharded collections
     * @param bytes     owned bytes of sharded collections
     * @param colour    its colour index in the pages' palette (its position in {@code listShards}, modulo 8)
     * @param version   the shard service's build version ({@code /actuator/info}'s {@code build.version}), empty when unread
     * @param opsPerSecond the shard's commands per second at the console's latest sample, null before two samples
     */
    public record Shard(String name, String host, Health health, long documents, long bytes, int colour, String version,
                        @Nullable Double opsPerSecond) {
        public Shard {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(health, "health");
            Objects.requireNonNull(version, "version");
        }

        /** The command rate as the table writes it: one decimal, or {@code –} before two samples rated it. */
        public String opsText() {
            return opsPerSecond == null ? "–" : String.format(java.util.Locale.ROOT, "%.1f", opsPerSecond);
        }
    }

    /**
     * A service other than a shard and its health.
     *
     * @param role   {@code router}, {@code config}, {@code balancer}, {@code session}, {@code resharding}, or
     *               {@code kafka} and {@code postgresql}, as the config service's health reports them
     * @param url    its HTTP base URL, or what its health details say (the brokers, the database)
     * @param health its Actuator health
     */
    public record Service(String role, String url, Health health) {
        public Service {
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(health, "health");
        }
    }

    /**
     * A service's Actuator health, as a page shows it (its text is the status).
     *
     * @param status Actuator's {@code status} ({@code UP}, {@code DOWN}, ...), or {@code UNREACHABLE} when the service
     *               did not answer
     */
    public record Health(String status) {
        /** The health of a service that did not answer. */
        public static final Health UNREACHABLE = new Health("UNREACHABLE");

        public Health {
            Objects.requireNonNull(status, "status");
        }

        /** Whether it is {@code UP}. */
        public boolean up() {
            return "UP".equals(status);
        }

        @Override
        public String toString() {
            return status;
        }
    }

    /**
     * {@code balancerStatus}: {@code mode} ({@code full} or {@code off}), whether a round runs, how many ran.
     */
    public record BalancerState(String mode, boolean inRound, long rounds) {
        public BalancerState {
            Objects.requireNonNull(mode, "mode");
        }
    }

    /**
     * The overview page.
     *
     * @param balancerWindow the balancer's {@code activeWindow} as {@code HH:mm–HH:mm}, {@code any time} without one, empty
     *                       when unread
     * @param clusterTime the router's {@code $clusterTime} as {@code seconds|increment (UTC time)}, or empty when unread
     * @param sessions    the logical sessions the session service stores, or empty when unread
     * @param collections the sharded collections' namespaces, sorted
     */
    public record Overview(List<Shard> shards, List<Service> services, @Nullable BalancerState balancer, String balancerWindow,
                           String clusterTime, String sessions, List<String> collections, List<ClusterError> errors) {
        public Overview {
            Objects.requireNonNull(balancerWindow, "balancerWindow");
            Objects.requireNonNull(sessions, "sessions");
            shards = List.copyOf(shards);
            services = List.copyOf(services);
            collections = List.copyOf(collections);
            errors = List.copyOf(errors);
        }

        /**
         * The ECharts option of the documents-per-shard bar chart, JSON: {@code {xAxis: {data: [shard names]}, series:
         * [{type: "bar", data: [documents]}]}} with the shards' palette colours as {@code color} (console.js draws it).
         * Not animated: the chart is drawn again at every update, and a bar growing from zero each time would misstate it.
         */
        public String chartJson() {
            StringBuilder names = new StringBuilder();
            StringBuilder values = new StringBuilder();
            for (Shard s : shards) {
                names.append(names.isEmpty() ? "" : ",").append('"').append(s.name().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
                values.append(values.isEmpty() ? "" : ",").append("{\"value\":").append(s.documents())
                        .append(",\"itemStyle\":{\"color\":\"").append(PALETTE_COLOURS.get(s.colour())).append("\"}}");
            }
            return "{\"animation\":false,\"grid\":{\"left\":70,\"right\":10,\"top\":10,\"bottom\":30},\"tooltip\":{},\"xAxis\":{\"type\":\"category\",\"data\":["
                    + names + "]},\"yAxis\":{\"type\":\"value\"},\"series\":[{\"type\":\"bar\",\"name\":\"documents\",\"data\":[" + values + "]}]}";
        }

        /** The chart as text, for its accessible label: {@code shard1 120, shard2 80}. */
        public String chartLabel() {
            return String.join(", ", shards.stream().map(s -> s.name() + " " + s.documents()).toList());
        }
    }

    /** The palette of console.css's {@code .shard-0} … {@code .shard-7}, in order (colour-blind safe, Okabe–Ito). */
    public static final List<String> PALETTE_COLOURS =
            List.of("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#777777");

    /**
     * One chunk as the collection map draws it.
     *
     * @param index    its position in key order, from 0
     * @param min      its lower bound, relaxed Extended JSON
     * @param max      its upper bound (exclusive)
     * @param shard    the owning shard
     * @param colour   the owner's palette index
     * @param version  {@code lastmod} as {@code major|minor}
     * @param jumbo    whether the balancer gave up splitting it
     * @param zone     the zone whose range holds its lower bound, or null
     * @param documents its estimated documents: its shard's owned documents of the collection over that shard's chunks
     *                 (no per-chunk count is exposed by the cluster)
     * @param bytes    its estimated bytes, likewise
     * @param weight   its share of the map's width in percent, by the chosen measure
     * @param moving   the migration moving it now, as {@code phase → recipient}, or null
     */
    public record Chunk(int index, String min, String max, String shard, int colour, String version, boolean jumbo,
                        @Nullable String zone, long documents, long bytes, double weight, @Nullable String moving) {
        public Chunk {
            Objects.requireNonNull(min, "min");
            Objects.requireNonNull(max, "max");
            Objects.requireNonNull(shard, "shard");
            Objects.requireNonNull(version, "version");
        }

        /**
         * What the map says of it (its accessible name and the text shown on hover or focus):
         * {@code Chunk 3: [{"k": 600}, {"k": 900}) on shard2, version 5|0, ~300 documents, ~72900 bytes}, then
         * {@code , jumbo}, {@code , zone EU} and {@code , moving: clone → shard3} when they apply.
         */
        public String describe() {
            return "Chunk " + (index + 1) + ": [" + min + ", " + max + ") on " + shard + ", version " + version + ", ~" + documents
                    + " documents, ~" + bytes + " bytes" + (jumbo ? ", jumbo" : "") + (zone != null ? ", zone " + zone : "")
                    + (moving != null ? ", moving: " + moving : "");
        }
    }

    /**
     * The most chunks the collection map also lists as a table: a table of 10,000 rows would make every 2 s update
     * megabytes long (docs/benchmarks.md, "The console's collection map").
     */
    public static final int CHUNK_TABLE_LIMIT = 500;

    /** A zone range of {@code config.tags}: {@code [min, max)} belongs to {@code zone}. */
    public record Zone(String zone, String min, String max) {
        public Zone {
            Objects.requireNonNull(zone, "zone");
            Objects.requireNonNull(min, "min");
            Objects.requireNonNull(max, "max");
        }
    }

    /**
     * The collection map page.
     *
     * @param ns     the namespace
     * @param key    the shard key pattern, relaxed Extended JSON (empty when the collection is not sharded)
     * @param width  the measure of a chunk's width: {@code chunks} (equal), {@code documents} or {@code bytes}
     * @param chunks in key order
     * @param shards the cluster's shards (for the legend)
     * @param mapVersion {@link ChunkMapHtml#version} of {@code chunks}: a live update whose browser holds this version
     *                   keeps its map instead of being sent it again
     */
    public record CollectionMap(String ns, String key, String width, List<Chunk> chunks, List<Zone> zones, List<Shard> shards,
                                List<ClusterError> errors, String mapVersion) {
        public CollectionMap {
            Objects.requireNonNull(ns, "ns");
            chunks = List.copyOf(chunks);
            zones = List.copyOf(zones);
            shards = List.copyOf(shards);
            errors = List.copyOf(errors);
            Objects.requireNonNull(mapVersion, "mapVersion");
        }

        /** The map of {@code chunks}, versioned by them. */
        public CollectionMap(String ns, String key, String width, List<Chunk> chunks, List<Zone> zones, List<Shard> shards,
                List<ClusterError> errors) {
            this(ns, key, width, chunks, zones, shards, errors, ChunkMapHtml.version(chunks));
        }
    }

    /**
     * A migration running on a shard, from its {@code /actuator/migrations} {@code active} entries.
     *
     * @param reporter        the shard that reports it
     * @param role            its {@code desc}: donor or recipient side
     * @param percent         documents cloned over the chunk's estimated documents, 0..100, or -1 when unknown
     */
    public record Migration(String reporter, String role, String ns, String min, String max, String donor, String recipient,
                            String phase, long documentsCloned, long bytesCloned, long modsTransferred, long elapsedMillis,
                            int percent) {
        public Migration {
            Objects.requireNonNull(reporter, "reporter");
            Objects.requireNonNull(phase, "phase");
        }
    }

    /** A range deletion a shard waits to run ({@code /actuator/migrations} {@code rangeDeletions}). */
    public record RangeDeletion(String shard, String ns, String min, String max, String side, boolean pending, String whenToClean) {}

    /** One entry of {@code config.changelog} or {@code config.actionlog}: when, what, where, and its details as JSON. */
    public record LogEntry(String time, String what, String ns, String details) {}

    /** The movements page. */
    public record Movements(List<Migration> active, List<RangeDeletion> rangeDeletions, List<LogEntry> history,
                            List<ClusterError> errors) {
        public Movements {
            active = List.copyOf(active);
            rangeDeletions = List.copyOf(rangeDeletions);
            history = List.copyOf(history);
            errors = List.copyOf(errors);
        }
    }

    /** One decision of {@code balancerPlan}: a decider's verdict on a collection and why. */
    public record Decision(String ns, String decider, String verdict, String reason) {}

    /** {@code balancerCollectionStatus} of one collection. */
    public record Compliance(String ns, boolean compliant, String violation) {}

    /** The balancer page. */
    public record Balancer(@Nullable BalancerState state, List<Decision> plan, List<Compliance> compliance, List<LogEntry> rounds,
                           List<Shard> shards, List<String> collections, List<ClusterError> errors) {
        public Balancer {
            plan = List.copyOf(plan);
            compliance = List.copyOf(compliance);
            rounds = List.copyOf(rounds);
            shards = List.copyOf(shards);
            collections = List.copyOf(collections);
            errors = List.copyOf(errors);
        }
    }

    /**
     * One entry of the router's {@code $currentOp}, as the operations page's table shows it (MongoDB's fields).
     *
     * @param opid        the router's opid, or {@code "<shard>:<opid>"} for a shard's operation; empty for a migration
     * @param shard       the shard that runs it, empty for the router's own
     * @param op          {@code command}, {@code getmore}; empty for a migration
     * @param ns          the namespace
     * @param secsRunning how long it has run, whole seconds
     * @param desc        who runs it: the front end or peer endpoint, or the migration's role
     */
    public record RunningOp(String opid, String shard, String op, String ns, long secsRunning, String desc) {
        public RunningOp {
            Objects.requireNonNull(opid, "opid");
            Objects.requireNonNull(shard, "shard");
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(ns, "ns");
            Objects.requireNonNull(desc, "desc");
            if (secsRunning < 0) {
                throw new IllegalArgumentException("secs_running is not negative: " + secsRunning);
            }
        }
    }

    /**
     * One slow client command from a router's slow-operation log ({@code /actuator/slowOperations}).
     *
     * @param router         the router that logged it
     * @param ts             when it ended, ISO-8601
     * @param ns             its namespace ({@code db.$cmd} without a collection)
     * @param command        the command's name
     * @param durationMillis how long it ran in the router
     * @param outcome        {@code ok}, or the error code it failed with
     * @param users          who ran it, comma-separated; empty without authentication
     */
    public record SlowOp(String router, String ts, String ns, String command, long durationMillis, String outcome, String users) {
        public SlowOp {
            Objects.requireNonNull(router, "router");
            Objects.requireNonNull(ts, "ts");
            Objects.requireNonNull(ns, "ns");
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(users, "users");
        }
    }

    /**
     * The operations page: what the cluster exposes of its running operations today.
     *
     * @param currentOp the router's {@code $currentOp} entries; empty when it refuses (its error is in {@code errors})
     * @param slowOperations the routers' latest slow commands, newest first, at most {@value ClusterViews#SLOW_OPERATIONS_SHOWN}
     * @param sessions  the session service's {@code /actuator/sessions}, as JSON, or empty
     * @param meters    each shard's sampled command throughput and p99 ({@link MeterSampler}), for the table beside the
     *                  charts
     * @param sampleSeconds the seconds between two samples
     */
    public record Operations(List<RunningOp> currentOp, List<SlowOp> slowOperations, List<Migration> migrations, String sessions,
                             List<ShardMeters> meters, long sampleSeconds, List<ClusterError> errors) {
        public Operations {
            currentOp = List.copyOf(currentOp);
            slowOperations = List.copyOf(slowOperations);
            migrations = List.copyOf(migrations);
            meters = List.copyOf(meters);
            errors = List.copyOf(errors);
        }

        /** A rate or latency as the table writes it: one decimal, or {@code –} when there is none. */
        public String format(@Nullable Double value) {
            return value == null ? "–" : String.format(java.util.Locale.ROOT, "%.1f", value);
        }
    }

    /**
     * What an action (balancer start/stop, moveChunk) answered.
     *
     * @param ok      whether the cluster accepted it
     * @param message what it did, or the error with its code
     */
    public record ActionResult(boolean ok, String message) {
        public ActionResult {
            Objects.requireNonNull(message, "message");
        }
    }
}
