package dev.shardstore.console;

import dev.shardstore.console.ChunkCache.CachedChunk;
import dev.shardstore.console.meters.MeterSampler;
import dev.shardstore.console.Views.ActionResult;
import dev.shardstore.console.Views.Balancer;
import dev.shardstore.console.Views.BalancerState;
import dev.shardstore.console.Views.Chunk;
import dev.shardstore.console.Views.CollectionMap;
import dev.shardstore.console.Views.Compliance;
import dev.shardstore.console.Views.Decision;
import dev.shardstore.console.Views.Health;
import dev.shardstore.console.Views.LogEntry;
import dev.shardstore.console.Views.Migration;
import dev.shardstore.console.Views.RunningOp;
import dev.shardstore.console.Views.SlowOp;
import dev.shardstore.console.Views.Movements;
import dev.shardstore.console.Views.Operations;
import dev.shardstore.console.Views.Overview;
import dev.shardstore.console.Views.RangeDeletion;
import dev.shardstore.console.Views.Service;
import dev.shardstore.console.Views.Shard;
import dev.shardstore.console.Views.Zone;
import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import jakarta.annotation.PreDestroy;
import org.springframework.stereotype.Component;

/**
 * Reads what each page shows from the cluster, through {@link ClusterClient} only: {@code listShards},
 * {@code $shardedDataDistribution}, {@code config.collections}/{@code chunks}/{@code tags}/{@code changelog}/
 * {@code actionlog} (the router's {@code find} and {@code aggregate} on {@code config}), the balancer commands, and the
 * services' Actuator {@code health} and the shards' {@code migrations} (docs/architecture.md "Observability"). The
 * independent requests of a page run at once, on virtual threads, so a page costs its slowest request, and a down
 * service costs at most the request timeout. A request that fails becomes one of the view's errors; the rest of the
 * page is still shown. Thread-safe.
 */
@Component
public class ClusterViews {
    /** Entries of {@code config.changelog} and {@code config.actionlog} shown, newest first. */
    static final int LOG_ENTRIES = 25;
    /** Colours of the pages' palette (console.css {@code .shard-0} … {@code .shard-7}). */
    static final int PALETTE = 8;
    private static final List<String> WIDTHS = List.of("chunks", "documents", "bytes");

    private final ClusterClient client;
    private final ChunkCache chunkCache;
    private final MeterSampler meters;
    private final ConsoleProperties properties;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    public ClusterViews(ClusterClient client, ChunkCache chunkCache, MeterSampler meters, ConsoleProperties properties) {
        this.client = client;
        this.chunkCache = chunkCache;
        this.meters = meters;
        this.properties = properties;
    }

    /** The overview: shards with health and owned data, the other services' health, the balancer, the cluster time. */
    public Overview overview() {
        List<ClusterError> errors = Collections.synchronizedList(new ArrayList<>());
        Future<List<Shard>> shards = submit(() -> shards(errors));
        List<Future<Service>> services = new ArrayList<>();
        for (int i = 0; i < properties.routerUrls().size(); i++) {
            String url = properties.routerUrls().get(i);
            String role = "router" + (i + 1);
            services.add(submit(() -> new Service(role, url, health(url))));
        }
        Future<Optional<BsonDocument>> configHealth = submit(() -> actuatorIfUp(properties.configUrl(), "health"));
        services.add(submit(() -> new Service("balancer", properties.balancerUrl(), health(properties.balancerUrl()))));
        services.add(submit(() -> new Service("session", properties.sessionUrl(), health(properties.sessionUrl()))));
        services.add(submit(() -> new Service("resharding", properties.reshardingUrl(), health(properties.reshardingUrl()))));
        Future<Optional<BsonDocument>> status = submit(() -> attempt(errors, () -> client.command("admin", command("balancerStatus"))));
        Future<String> window = submit(() -> attempt(errors, () -> client.find("config", "settings", new BsonDocument("_id", new BsonString("balancer"))))
                .map(ClusterViews::activeWindow).orElse(""));
        Future<String> sessions = submit(() -> attempt(errors, () -> client.actuator(properties.sessionUrl(), "sessions"))
                .map(state -> state.isNumber("stored") ? Long.toString(state.getNumber("stored").longValue()) : "").orElse(""));
        Future<List<String>> collections = submit(() -> collections(errors));
        BsonDocument balancerReply = join(status).orElse(null);
        List<Service> all = new ArrayList<>(services.stream().map(ClusterViews::join).toList());
        BsonDocument config = join(configHealth).orElse(null);
        all.add(properties.routerUrls().size(), new Service("config", properties.configUrl(), config == null ? Health.UNREACHABLE : new Health(string(config, "status"))));
        // Kafka's and PostgreSQL's health as the config service's health indicators see them: the console reaches neither
        all.add(new Service("kafka", component(config, "kafka", "brokers"), componentHealth(config, "kafka")));
        all.add(new Service("postgresql", component(config, "db", "database"), componentHealth(config, "db")));
        return new Overview(join(shards), all, balancerReply == null ? null : balancerState(balancerReply), join(window),
                balancerReply == null ? "" : clusterTime(balancerReply), join(sessions), join(collections), errors);
    }

    /** {@code config.settings}' balancer document's {@code activeWindow} as {@code HH:mm–HH:mm}, or {@code any time}. */
    private static String activeWindow(List<BsonDocument> settings) {
        BsonDocument window = settings.isEmpty() || !settings.getFirst().isDocument("activeWindow") ? null
                : settings.getFirst().getDocument("activeWindow");
        return window == null ? "any time" : string(window, "start") + "–" + string(window, "stop") + " (UTC)";
    }

    /** {@code <url>/actuator/<path>}; empty when the service did not answer (a down service is shown, not an error). */
    private Optional<BsonDocument> actuatorIfUp(String url, String path) {
        try {
            return Optional.of(client.actuator(url, path));
        } catch (ClusterException e) {
            return Optional.empty();
        }
    }

    private static Health componentHealth(@Nullable BsonDocument health, String component) {
        BsonDocument found = health == null || !health.isDocument("components") ? null
                : health.getDocument("components").isDocument(component) ? health.getDocument("components").getDocument(component) : null;
        return found == null ? Health.UNREACHABLE : new Health(string(found, "status"));
    }

    /** A health component's detail, as the URL column shows it ({@code brokers: 1}), or where it is seen from. */
    private static String component(@Nullable BsonDocument health, String component, String detail) {
        if (health != null && health.isDocument("components") && health.getDocument("components").isDocument(component)) {
            BsonDocument details = health.getDocument("components").getDocument(component).getDocument("details", new BsonDocument());
            if (details.containsKey(detail)) {
                return detail + ": " + string(details, detail) + " (the config service's health)";
            }
        }
        return "(the config service's health)";
    }

    /**
     * The map of {@code ns}'s chunks in key order, each sized by {@code width} ({@code chunks}, {@code documents} or
     * {@code bytes}; anything else is {@code chunks}).
     */
    public CollectionMap collectionMap(String ns, String width) {
        String measure = WIDTHS.contains(width) ? width : "chunks";
        List<ClusterError> errors = Collections.synchronizedList(new ArrayList<>());
        Future<Map<String, Map<String, long[]>>> distribution = submit(() -> owned(errors));
        Future<List<Shard>> shardsFuture = submit(() -> shards(errors, distribution));
        Future<List<BsonDocument>> tagsFuture = submit(() -> attempt(errors,
                () -> client.find("config", "tags", new BsonDocument("ns", new BsonString(ns)))).orElse(List.of()));
        Optional<BsonDocument> collection = attempt(errors,
                () -> client.find("config", "collections", new BsonDocument("_id", new BsonString(ns))).stream().findFirst())
                .flatMap(c -> c);
        List<Shard> shards = join(shardsFuture);
        List<Zone> zones = join(tagsFuture).stream()
                .sorted(Comparator.comparing(t -> t.getDocument("min"), BsonOrder.COMPARATOR))
                .map(t -> new Zone(t.getString("tag").getValue(), json(t.getDocument("min")), json(t.getDocument("max")))).toList();
        if (collection.isEmpty()) {
            if (errors.isEmpty()) {
                errors.add(new ClusterError("config.collections", 118, "NamespaceNotSharded", ns + " is not a sharded collection"));
            }
            return new CollectionMap(ns, "", measure, List.of(), zones, shards, errors);
        }
        BsonDocument coll = collection.get();
        Future<List<CachedChunk>> chunksFuture = submit(() -> attempt(errors, () -> chunkCache.chunks(coll)).orElse(List.of()));
        Future<List<Migration>> activeFuture = submit(() -> migrations(migrationReports(shards, errors), Map.of()));
        List<CachedChunk> chunks = join(chunksFuture);
        Map<String, long[]> owned = join(distribution).getOrDefault(ns, Map.of());
        List<Migration> active = join(activeFuture).stream().filter(m -> m.ns().equals(ns)).toList();
        List<BsonDocument> tags = join(tagsFuture);
        return new CollectionMap(ns, json(coll.getDocument("key", new BsonDocument())), measure,
                chunkViews(chunks, shards, owned, tags, active, measure), zones, shards, errors);
    }

    private static List<Chunk> chunkViews(List<CachedChunk> chunks, List<Shard> shards, Map<String, long[]> owned,
            List<BsonDocument> tags, List<Migration> active, String measure) {
        Map<String, Integer> colours = new HashMap<>();
        shards.forEach(s -> colours.put(s.name(), s.colour()));
        Map<String, Integer> perShard = new HashMap<>();
        chunks.forEach(c -> perShard.merge(c.shard(), 1, Integer::sum));
        long[] estimates = new long[chunks.size() * 2];
        double total = 0;
        for (int i = 0; i < chunks.size(); i++) {
            String shard = chunks.get(i).shard();
            long[] data = owned.getOrDefault(shard, new long[2]);
            int n = perShard.getOrDefault(shard, 1);
            estimates[2 * i] = data[0] / n;
            estimates[2 * i + 1] = data[1] / n;
            total += weightOf(measure, estimates[2 * i], estimates[2 * i + 1]);
        }
        Map<String, String> moving = new HashMap<>();
        active.stream().filter(m -> m.role().contains("donor")).forEach(m -> moving.putIfAbsent(m.min(), m.phase() + " → " + m.recipient()));
        List<Chunk> out = new ArrayList<>(chunks.size());
        for (int i = 0; i < chunks.size(); i++) {
            CachedChunk c = chunks.get(i);
            double weight = total == 0 ? 100.0 / chunks.size()
                    : 100.0 * weightOf(measure, estimates[2 * i], estimates[2 * i + 1]) / total;
            out.add(new Chunk(i, c.minJson(), c.maxJson(), c.shard(), colours.getOrDefault(c.shard(), PALETTE - 1), c.version(), c.jumbo(),
                    zoneOf(c.min(), tags), estimates[2 * i], estimates[2 * i + 1], weight, moving.get(c.minJson())));
        }
        return out;
    }

    /** A chunk's weight: 1 for {@code chunks}; its estimate otherwise, at least 1 so that an empty chunk stays visible. */
    private static double weightOf(String measure, long documents, long bytes) {
        return switch (measure) {
            case "documents" -> Math.max(1, documents);
            case "bytes" -> Math.max(1, bytes);
            default -> 1;
        };
    }

    private static @Nullable String zoneOf(BsonDocument min, List<BsonDocument> tags) {
        for (BsonDocument tag : tags) {
            if (BsonOrder.compare(tag.getDocument("min"), min) <= 0 && BsonOrder.compare(min, tag.getDocument("max")) < 0) {
                return tag.getString("tag").getValue();
            }
        }
        return null;
    }

    /** The movements: migrations running on the shards, range deletions waiting, and {@code config.changelog}. */
    public Movements movements() {
        List<ClusterError> errors = Collections.synchronizedList(new ArrayList<>());
        Future<List<BsonDocument>> history = submit(() -> newest(errors, "changelog"));
        Future<Map<String, Map<String, long[]>>> owned = submit(() -> owned(errors));
        List<Shard> shards = shards(errors, owned);
        Map<String, BsonDocument> reports = migrationReports(shards, errors);
        java.util.Set<String> moving = new java.util.TreeSet<>();
        reports.values().forEach(r -> r.getArray("active", new BsonArray()).forEach(v -> moving.add(string(v.asDocument(), "ns"))));
        List<Migration> active = migrations(reports, chunkEstimates(moving, join(owned), errors));
        List<RangeDeletion> deletions = new ArrayList<>();
        reports.forEach((shard, report) -> report.getArray("rangeDeletions", new BsonArray()).forEach(v -> {
            BsonDocument d = v.asDocument();
            deletions.add(new RangeDeletion(shard, string(d, "ns"), json(d.get("min")), json(d.get("max")), string(d, "side"),
                    d.getBoolean("pending", org.bson.BsonBoolean.FALSE).getValue(), string(d, "whenToClean")));
        }));
        return new Movements(active, deletions, join(history).stream().map(ClusterViews::logEntry).toList(), errors);
    }

    /** The balancer: its state, its dry-run plan, each collection's compliance, its last rounds, and the move form's choices. */
    public Balancer balancer() {
        List<ClusterError> errors = Collections.synchronizedList(new ArrayList<>());
        Future<Optional<BsonDocument>> status = submit(() -> attempt(errors, () -> client.command("admin", command("balancerStatus"))));
        Future<Optional<BsonDocument>> plan = submit(() -> attempt(errors, () -> client.command("admin", command("balancerPlan"))));
        Future<List<BsonDocument>> rounds = submit(() -> newest(errors, "actionlog"));
        Future<List<Shard>> shards = submit(() -> shards(errors));
        List<String> collections = collections(errors);
        List<Future<Optional<Compliance>>> compliance = collections.stream().map(ns -> submit(() -> attempt(errors,
                () -> client.command("admin", new BsonDocument("balancerCollectionStatus", new BsonString(ns))))
                .map(r -> new Compliance(ns, r.getBoolean("balancerCompliant", org.bson.BsonBoolean.FALSE).getValue(),
                        string(r, "firstComplianceViolation"))))).toList();
        List<Decision> decisions = join(plan).map(r -> r.getArray("decisions", new BsonArray()).stream().map(BsonValue::asDocument)
                .map(d -> new Decision(string(d, "ns"), string(d, "decider"), string(d, "verdict"), string(d, "reason"))).toList())
                .orElse(List.of());
        return new Balancer(join(status).map(ClusterViews::balancerState).orElse(null), decisions,
                compliance.stream().map(ClusterViews::join).flatMap(Optional::stream).toList(),
                join(rounds).stream().map(ClusterViews::logEntry).toList(), join(shards), collections, errors);
    }

    /**
     * The operations: the router's {@code $currentOp} with {@code allUsers} (the router's commands and every shard's, and
     * the shards' migrations; a refusal is shown as its error), the running migrations, the sessions.
     */
    public Operations operations() {
        List<ClusterError> errors = Collections.synchronizedList(new ArrayList<>());
        Future<List<RunningOp>> currentOp = submit(() -> attempt(errors, () -> client.aggregate("admin", null,
                List.of(new BsonDocument("$currentOp", new BsonDocument("allUsers", org.bson.BsonBoolean.TRUE)))))
                .orElse(List.of()).stream().map(ClusterViews::runningOp).toList());
        Future<String> sessions = submit(() -> attempt(errors, () -> client.actuator(properties.sessionUrl(), "sessions"))
                .map(ClusterViews::json).orElse(""));
        List<Future<List<SlowOp>>> slow = new ArrayList<>();
        for (int i = 0; i < properties.routerUrls().size(); i++) {
            String url = properties.routerUrls().get(i);
            String router = "router" + (i + 1);
            slow.add(submit(() -> attempt(errors, () -> client.actuator(url, "slowOperations")).map(log -> log.getArray("operations")
                    .stream().map(op -> slowOp(router, op.asDocument())).toList()).orElse(List.of())));
        }
        List<Shard> shards = shards(errors);
        List<Migration> migrations = migrations(migrationReports(shards, errors), Map.of());
        List<SlowOp> slowOperations = slow.stream().flatMap(f -> join(f).stream())
                .sorted(Comparator.comparing(SlowOp::ts).reversed()).limit(SLOW_OPERATIONS_SHOWN).toList();
        return new Operations(join(currentOp), slowOperations, migrations, join(sessions), meters.history(), meters.interval().toSeconds(),
                errors);
    }

    /** How many of the routers' slow operations the page lists, the newest. */
    static final int SLOW_OPERATIONS_SHOWN = 20;

    private static SlowOp slowOp(String router, BsonDocument op) {
        BsonValue ts = op.get("ts");
        String when = ts != null && ts.isDateTime() ? java.time.Instant.ofEpochMilli(ts.asDateTime().getValue()).toString() : string(op, "ts");
        String name = op.isDocument("command") && !op.getDocument("command").isEmpty() ? op.getDocument("command").getFirstKey() : "";
        String users = op.isArray("users") ? String.join(", ", op.getArray("users").stream()
                .map(u -> u.isString() ? u.asString().getValue() : json(u)).toList()) : "";
        return new SlowOp(router, when, string(op, "ns"), name, number(op, "durationMillis"),
                op.containsKey("errCode") ? "error " + number(op, "errCode") : "ok", users);
    }

    /** One {@code $currentOp} document as the table shows it (a router's own operation has no {@code shard}). */
    private static RunningOp runningOp(BsonDocument op) {
        return new RunningOp(string(op, "opid"), string(op, "shard"), string(op, "op"), string(op, "ns"), number(op, "secs_running"),
                string(op, "desc"));
    }

    /** {@code balancerStart} or {@code balancerStop} ({@code start} true or false), as the page reports it. */
    public ActionResult setBalancer(boolean start) {
        String name = start ? "balancerStart" : "balancerStop";
        try {
            client.command("admin", command(name));
            return new ActionResult(true, name + ": the balancer is " + (start ? "started" : "stopped"));
        } catch (ClusterException e) {
            return new ActionResult(false, name + " refused: " + e.error().describe());
        }
    }

    /**
     * {@code moveChunk} of the chunk of {@code ns} holding {@code find} (a shard key value as Extended JSON) to shard
     * {@code to}; waits for the migration (the router's reply comes when it has committed).
     */
    public ActionResult moveChunk(String ns, String find, String to) {
        BsonDocument key;
        try {
            key = ExtendedJson.parse(find);
        } catch (CommandException e) {
            return new ActionResult(false, "moveChunk refused: " + e.code().codeName() + " (" + e.code().code() + "): " + e.getMessage());
        }
        try {
            client.command("admin", new BsonDocument("moveChunk", new BsonString(ns)).append("find", key)
                    .append("to", new BsonString(to)));
            return new ActionResult(true, "moveChunk: the chunk of " + ns + " holding " + json(key) + " moved to " + to);
        } catch (ClusterException e) {
            return new ActionResult(false, "moveChunk refused: " + e.error().describe());
        }
    }

    private List<Shard> shards(List<ClusterError> errors) {
        return shards(errors, submit(() -> owned(errors)));
    }

    /** The shards of {@code listShards} with their health and their owned totals of {@code owned} (summed over namespaces). */
    private List<Shard> shards(List<ClusterError> errors, Future<Map<String, Map<String, long[]>>> ownedFuture) {
        List<BsonDocument> listed = attempt(errors, () -> client.command("admin", command("listShards")))
                .map(r -> r.getArray("shards", new BsonArray()).stream().map(BsonValue::asDocument).toList()).orElse(List.of());
        List<Future<Health>> health = listed.stream().map(s -> submit(() -> health(string(s, "host")))).toList();
        List<Future<String>> versions = listed.stream().map(s -> submit(() -> version(string(s, "host")))).toList();
        Map<String, Double> rates = new HashMap<>();
        meters.history().forEach(m -> {
            if (m.latestOps() != null) {
                rates.put(m.shard(), m.latestOps());
            }
        });
        Map<String, long[]> totals = new HashMap<>();
        join(ownedFuture).values().forEach(perShard -> perShard.forEach((shard, data) -> {
            long[] sum = totals.computeIfAbsent(shard, k -> new long[2]);
            sum[0] += data[0];
            sum[1] += data[1];
        }));
        List<Shard> out = new ArrayList<>();
        for (int i = 0; i < listed.size(); i++) {
            String name = string(listed.get(i), "_id");
            long[] data = totals.getOrDefault(name, new long[2]);
            out.add(new Shard(name, string(listed.get(i), "host"), join(health.get(i)), data[0], data[1], i % PALETTE, join(versions.get(i)),
                    rates.get(name)));
        }
        return out;
    }

    /** {@code $shardedDataDistribution}: per namespace, per shard, {owned documents, owned bytes}. */
    private Map<String, Map<String, long[]>> owned(List<ClusterError> errors) {
        Map<String, Map<String, long[]>> out = new HashMap<>();
        attempt(errors, () -> client.aggregate("admin", null, List.of(new BsonDocument("$shardedDataDistribution", new BsonDocument()))))
                .orElse(List.of()).forEach(entry -> {
                    Map<String, long[]> perShard = out.computeIfAbsent(string(entry, "ns"), k -> new HashMap<>());
                    entry.getArray("shards", new BsonArray()).forEach(v -> {
                        BsonDocument s = v.asDocument();
                        perShard.put(string(s, "shardName"), new long[] {number(s, "numOwnedDocuments"), number(s, "ownedSizeBytes")});
                    });
                });
        return out;
    }

    private List<String> collections(List<ClusterError> errors) {
        return attempt(errors, () -> client.find("config", "collections", new BsonDocument())).orElse(List.of()).stream()
                .map(c -> string(c, "_id")).sorted().toList();
    }

    /** Each reachable shard's {@code /actuator/migrations}, by shard name, in {@code listShards} order. */
    private Map<String, BsonDocument> migrationReports(List<Shard> shards, List<ClusterError> errors) {
        List<Future<Optional<BsonDocument>>> reports = shards.stream()
                .map(s -> submit(() -> attempt(errors, () -> client.actuator(s.host(), "migrations")))).toList();
        Map<String, BsonDocument> out = new java.util.LinkedHashMap<>();
        for (int i = 0; i < shards.size(); i++) {
            int at = i;
            join(reports.get(i)).ifPresent(r -> out.put(shards.get(at).name(), r));
        }
        return out;
    }

    /**
     * The {@code active} entries of the shards' reports. A migration's percentage is its documents cloned over its
     * chunk's estimated documents ({@code chunkEstimates}: per namespace, per shard, {@link #chunkEstimates}); -1 without one.
     */
    private static List<Migration> migrations(Map<String, BsonDocument> reports, Map<String, Map<String, long[]>> chunkEstimates) {
        List<Migration> out = new ArrayList<>();
        reports.forEach((shard, report) -> report.getArray("active", new BsonArray()).forEach(v -> {
            BsonDocument m = v.asDocument();
            long cloned = number(m, "documentsCloned");
            long[] donorData = chunkEstimates.getOrDefault(string(m, "ns"), Map.of()).get(string(m, "donor"));
            int percent = donorData == null || donorData[0] == 0 ? -1 : (int) Math.min(100, 100 * cloned / Math.max(1, donorData[0]));
            out.add(new Migration(shard, string(m, "desc"), string(m, "ns"), json(m.get("min")), json(m.get("max")), string(m, "donor"),
                    string(m, "recipient"), string(m, "phase"), cloned, number(m, "bytesCloned"), number(m, "modsTransferred"),
                    number(m, "elapsedMillis"), percent));
        }));
        return out;
    }

    /**
     * Per namespace of {@code namespaces}, per shard: its owned {documents, bytes} of the collection ({@code owned}) over
     * its chunks of it, the estimate of one chunk (the cluster exposes no per-chunk size).
     */
    private Map<String, Map<String, long[]>> chunkEstimates(java.util.Set<String> namespaces, Map<String, Map<String, long[]>> owned,
            List<ClusterError> errors) {
        Map<String, Map<String, long[]>> out = new HashMap<>();
        for (String ns : namespaces) {
            attempt(errors, () -> client.find("config", "collections", new BsonDocument("_id", new BsonString(ns)))).stream()
                    .flatMap(List::stream).findFirst().ifPresent(coll -> {
                        Map<String, Integer> counts = new HashMap<>();
                        attempt(errors, () -> chunkCache.chunks(coll)).orElse(List.of())
                                .forEach(c -> counts.merge(c.shard(), 1, Integer::sum));
                        Map<String, long[]> perShard = new HashMap<>();
                        owned.getOrDefault(ns, Map.of()).forEach((shard, data) -> {
                            int n = counts.getOrDefault(shard, 0);
                            if (n > 0) {
                                perShard.put(shard, new long[] {data[0] / n, data[1] / n});
                            }
                        });
                        out.put(ns, perShard);
                    });
        }
        return out;
    }

    private List<BsonDocument> newest(List<ClusterError> errors, String collection) {
        return attempt(errors, () -> client.aggregate("config", collection, List.of(
                new BsonDocument("$sort", new BsonDocument("time", new BsonInt32(-1))),
                new BsonDocument("$limit", new BsonInt32(LOG_ENTRIES))))).orElse(List.of());
    }

    private static LogEntry logEntry(BsonDocument entry) {
        BsonValue time = entry.get("time");
        // 2026-12-02 03:49:49.640 (UTC, as the column says): short enough not to wrap
        String when = time != null && time.isDateTime()
                ? Instant.ofEpochMilli(time.asDateTime().getValue()).toString().replace('T', ' ').replace("Z", "") : "";
        return new LogEntry(when, string(entry, "what"), string(entry, "ns"), json(entry.get("details")));
    }

    /** The Actuator health of {@code url}: its {@code status}, or {@link Health#UNREACHABLE} when it does not answer. */
    /** A service's build version from {@code /actuator/info}; empty when it does not say or does not answer. */
    private String version(String url) {
        return actuatorIfUp(url, "info").filter(info -> info.isDocument("build"))
                .map(info -> string(info.getDocument("build"), "version")).orElse("");
    }

    private Health health(String url) {
        return actuatorIfUp(url, "health").map(health -> new Health(string(health, "status"))).orElse(Health.UNREACHABLE);
    }

    private static BalancerState balancerState(BsonDocument reply) {
        return new BalancerState(string(reply, "mode"), reply.getBoolean("inBalancerRound", org.bson.BsonBoolean.FALSE).getValue(),
                number(reply, "numBalancerRounds"));
    }

    /** {@code $clusterTime.clusterTime} as {@code seconds|increment (UTC time)}; empty when the reply has none. */
    static String clusterTime(BsonDocument reply) {
        BsonValue time = reply.isDocument("$clusterTime") ? reply.getDocument("$clusterTime").get("clusterTime") : null;
        if (time == null || !time.isTimestamp()) {
            return "";
        }
        BsonTimestamp ts = time.asTimestamp();
        return ts.getTime() + "|" + ts.getInc() + " (" + Instant.ofEpochSecond(ts.getTime()) + ")";
    }

    /** {@code lastmod} as {@code major|minor}. */
    static String version(@Nullable BsonValue lastmod) {
        if (lastmod == null) {
            return "";
        }
        if (lastmod.isTimestamp()) {
            return lastmod.asTimestamp().getTime() + "|" + lastmod.asTimestamp().getInc();
        }
        if (lastmod.isDocument()) {
            BsonDocument v = lastmod.asDocument();
            return number(v, "major") + "|" + number(v, "minor");
        }
        return json(lastmod);
    }

    private <T> Optional<T> attempt(List<ClusterError> errors, Supplier<T> request) {
        try {
            return Optional.of(request.get());
        } catch (ClusterException e) {
            errors.add(e.error());
            return Optional.empty();
        }
    }

    /** Ends the virtual threads' executor with the application. */
    @PreDestroy
    void close() {
        executor.close();
    }

    private <T> Future<T> submit(java.util.concurrent.Callable<T> task) {
        return executor.submit(task);
    }

    private static <T> T join(Future<T> future) {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the cluster", e);
        }
    }

    private static BsonDocument command(String name) {
        return new BsonDocument(name, new BsonInt32(1));
    }

    private static String string(BsonDocument doc, String field) {
        BsonValue value = doc.get(field);
        return value == null ? "" : value.isString() ? value.asString().getValue() : json(value);
    }

    private static long number(BsonDocument doc, String field) {
        return doc.isNumber(field) ? doc.getNumber(field).longValue() : 0;
    }

    /** A value as relaxed Extended JSON (a document as it is; any other value inside {@code {"v": ...}}, unwrapped). */
    static String json(@Nullable BsonValue value) {
        if (value == null) {
            return "";
        }
        if (value.isDocument()) {
            return ExtendedJson.toJson(value.asDocument());
        }
        String wrapped = ExtendedJson.toJson(new BsonDocument("v", value));
        return wrapped.substring(wrapped.indexOf(':') + 1, wrapped.length() - 1).strip();
    }
}
