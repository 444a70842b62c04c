package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.cluster.ycsb.CommandBinding;
import dev.shardstore.cluster.ycsb.PostgresBinding;
import dev.shardstore.cluster.ycsb.RouterBinding;
import dev.shardstore.cluster.ycsb.WireBinding;
import dev.shardstore.cluster.ycsb.YcsbInserts;
import dev.shardstore.cluster.ycsb.YcsbResult;
import dev.shardstore.cluster.ycsb.YcsbRunner;
import dev.shardstore.cluster.ycsb.YcsbSetup;
import dev.shardstore.cluster.ycsb.YcsbTarget;
import dev.shardstore.cluster.ycsb.YcsbWorkload;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ycsb --workload a|b|c|e|f}: YCSB against the router (its REST API and/or its wire protocol) and/or the
 * direct-PostgreSQL baseline on shard1's database, same threads and records, printing throughput and p50/p95/p99 per
 * operation type and, when the baseline ran too, each router target's ratio to it (docs/benchmarks.md). With
 * {@code --rounds N} the measured phases repeat N times, the targets taking turns, and the median ratio ends the report.
 */
@Command(name = "ycsb", mixinStandardHelpOptions = true,
        description = "Run a YCSB workload through the router and/or straight against one shard's PostgreSQL database, and compare.")
final class YcsbCommand implements Callable<Integer> {
    @Mixin
    HomeOption home;

    @Option(names = "--workload", defaultValue = "c", description = "a (50/50 read/update), b (95/5), c (read only), e (short scans), f (read-modify-write); default: ${DEFAULT-VALUE}")
    String workload;

    @Option(names = "--records", defaultValue = "100000", description = "records loaded (default: ${DEFAULT-VALUE})")
    long records;

    @Option(names = "--ops", defaultValue = "100000", description = "operations in the measured phase (default: ${DEFAULT-VALUE})")
    long ops;

    @Option(names = "--threads", defaultValue = "8", description = "YCSB client threads (default: ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--target", defaultValue = "both", description = "router (REST), wire (MongoDB wire protocol, Java driver), postgres, a comma-separated list of them (e.g. wire,postgres), both (router,postgres) or all (default: ${DEFAULT-VALUE})")
    String target;

    @Option(names = "--field-count", defaultValue = "10", description = "fields per record, YCSB's fieldcount (default: ${DEFAULT-VALUE})")
    int fieldCount;

    @Option(names = "--field-length", defaultValue = "100", description = "bytes per field, YCSB's fieldlength (default: ${DEFAULT-VALUE})")
    int fieldLength;

    @Option(names = "--rounds", defaultValue = "1", description = "measured phases per target, the targets taking turns within each round; "
            + "with several, each round's ratios and their median are printed (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--throttle", paramLabel = "OPS", description = "operations/s the measured phase aims at over all its threads"
            + " (YCSB's target), e.g. a routed run's rate for the baseline, to compare CPU per operation at equal rates"
            + " (default: as fast as it can)")
    Long throttle;

    @Option(names = "--skip-load", description = "reuse the records a previous run loaded (same --records and field options)")
    boolean skipLoad;

    @Option(names = "--router", paramLabel = "URL", description = "router URL (default: router1 of the recorded cluster)")
    String router;

    @Option(names = "--wire", paramLabel = "URI", description = "router connection string for --target wire (default: router1 of the recorded cluster)")
    String wire;

    @Option(names = "--jdbc", paramLabel = "URL", description = "baseline database (default: shard1's database of the recorded cluster)")
    String jdbc;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        YcsbWorkload mix = YcsbWorkload.parse(workload);
        List<YcsbTarget> targets = YcsbTarget.parse(target);
        if (records < 1 || ops < 1 || threads < 1 || fieldCount < 1 || fieldLength < 1 || rounds < 1 || (throttle != null && throttle < 1)) {
            throw new IllegalArgumentException("--records, --ops, --threads, --field-count, --field-length, --rounds and --throttle must be positive");
        }
        Optional<LocalCluster> cluster = home.attach(new PrintWriter(System.err, true));
        String routerUrl = router != null ? router : cluster.map(c -> c.routerUrl(1)).orElse("http://localhost:8080");
        String wireUri = wire != null ? wire : cluster.map(c -> c.connectionString(1)).orElse("mongodb://localhost:27017");
        String jdbcUrl = jdbc != null ? jdbc : cluster.map(c -> c.jdbcUrl("shard1")).orElse("jdbc:postgresql://localhost:25432/shard1");

        Map<String, String> properties = new LinkedHashMap<>(mix.properties());
        properties.put("recordcount", Long.toString(records));
        properties.put("operationcount", Long.toString(ops));
        properties.put("fieldcount", Integer.toString(fieldCount));
        properties.put("fieldlength", Integer.toString(fieldLength));
        properties.put(RouterBinding.ROUTER_PROPERTY, routerUrl);
        properties.put(WireBinding.WIRE_PROPERTY, wireUri);
        properties.put(PostgresBinding.JDBC_PROPERTY, jdbcUrl);
        // a cluster started with --auth: the bindings authenticate as admin, reading the password from its file
        Optional<Path> passwordFile = cluster.filter(c -> c.home().adminPassword().isPresent()).map(c -> c.home().adminPasswordFile());
        passwordFile.ifPresent(file -> {
            properties.put(CommandBinding.USER_PROPERTY, LocalCluster.ADMIN_USER);
            properties.put(CommandBinding.PASSWORD_FILE_PROPERTY, file.toString());
        });
        RouterClient setup = cluster.filter(c -> router == null).map(c -> c.routerClient(Duration.ofMinutes(2)))
                .orElseGet(() -> new RouterClient(routerUrl, Duration.ofMinutes(2)));
        YcsbRunner loader = new YcsbRunner(home.dir().resolve("ycsb"), properties);
        YcsbRunner runner = throttle == null ? loader : loader.throttled(throttle); // a load goes as fast as it can

        for (YcsbTarget t : targets) {
            if (!skipLoad) {
                if (t.throughRouter()) {
                    YcsbSetup.router(setup, CommandBinding.DEFAULT_DATABASE, "usertable");
                } else {
                    YcsbSetup.postgres(jdbcUrl, "usertable");
                }
                YcsbResult load = loader.run(t, true, threads);
                out.printf("%s: loaded %,d records at %,.0f inserts/s (%d threads)%n", t.name(), records, load.throughput(), threads);
            }
        }
        // The targets take turns, round after round: this VM's speed drifts by a fifth over minutes, so a ratio is only
        // fair between phases run close together, and a median over rounds says more than any one of them.
        boolean allOk = true;
        Map<YcsbTarget, List<Double>> ratios = new LinkedHashMap<>();
        List<Double> restOverWire = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            Map<YcsbTarget, YcsbResult> results = new LinkedHashMap<>();
            for (YcsbTarget t : targets) {
                out.printf("%s: running workload %s, %,d operations, %d threads%s…%n", t.name(), mix, ops, threads,
                        rounds > 1 ? ", round " + round + " of " + rounds : "");
                out.flush();
                YcsbResult result = runner.run(t, false, threads);
                results.put(t, result);
                YcsbResult.Operation inserts = result.operations().get("INSERT");
                if (inserts != null) { // YCSB would insert the same keys next run: take them back
                    YcsbInserts.remove(t, properties, inserts.count());
                }
            }
            print(out, mix, results);
            ratios(results).forEach((t, ratio) -> ratios.computeIfAbsent(t, k -> new ArrayList<>()).add(ratio));
            restOverWire(results).ifPresent(restOverWire::add);
            allOk &= results.values().stream().allMatch(r -> r.operations().values().stream().allMatch(o -> o.errors() == 0));
        }
        if (rounds > 1) {
            ratios.forEach((t, r) -> printMedian(out, t.name() + "/postgres", r));
            if (!restOverWire.isEmpty()) {
                printMedian(out, "router/wire", restOverWire);
            }
            out.flush();
        }
        return allOk ? 0 : 1;
    }

    /** {@code median over N rounds, <what> throughput: M (rounds: a, b, …)}. */
    private static void printMedian(PrintWriter out, String what, List<Double> perRound) {
        out.printf("median over %d rounds, %s throughput: %.3f (rounds: %s)%n", perRound.size(), what, median(perRound),
                perRound.stream().map(x -> String.format("%.3f", x)).collect(Collectors.joining(", ")));
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** Each router target's throughput as a fraction of PostgreSQL's in one round; empty when the baseline did not run. */
    private static Map<YcsbTarget, Double> ratios(Map<YcsbTarget, YcsbResult> results) {
        Map<YcsbTarget, Double> ratios = new LinkedHashMap<>();
        YcsbResult postgres = results.get(YcsbTarget.POSTGRES);
        if (postgres != null && postgres.throughput() > 0) {
            results.forEach((t, r) -> {
                if (t.throughRouter()) {
                    ratios.put(t, r.throughput() / postgres.throughput());
                }
            });
        }
        return ratios;
    }

    /**
     * The REST front end's throughput as a fraction of the wire protocol's in one round (the same commands through the
     * same router), when both ran.
     */
    private static Optional<Double> restOverWire(Map<YcsbTarget, YcsbResult> results) {
        YcsbResult rest = results.get(YcsbTarget.ROUTER);
        YcsbResult wire = results.get(YcsbTarget.WIRE);
        return rest == null || wire == null || wire.throughput() <= 0 ? Optional.empty() : Optional.of(rest.throughput() / wire.throughput());
    }

    /** Prints one round's table, then each router target's throughput and per-operation p50 ratios to PostgreSQL's. */
    private static void print(PrintWriter out, YcsbWorkload mix, Map<YcsbTarget, YcsbResult> results) {
        out.printf("%nworkload %s%n%-9s %-18s %10s %12s %10s %10s %10s %8s%n", mix, "target", "operation", "ops", "ops/s", "p50 ms", "p95 ms", "p99 ms", "errors");
        results.forEach((t, r) -> {
            r.operations().forEach((op, o) -> out.printf("%-9s %-18s %,10d %,12.0f %10.3f %10.3f %10.3f %,8d%n", t.name(), op, o.count(),
                    r.throughput() * o.count() / total(r), o.p50Us() / 1000, o.p95Us() / 1000, o.p99Us() / 1000, o.errors()));
            out.printf("%-9s %-18s %10s %,12.0f%n", t.name(), "OVERALL", "", r.throughput());
        });
        YcsbResult postgres = results.get(YcsbTarget.POSTGRES);
        Map<YcsbTarget, Double> ratios = ratios(results);
        results.forEach((t, r) -> {
            Double ratio = ratios.get(t);
            if (postgres == null || ratio == null) {
                return; // no baseline, or the baseline itself
            }
            out.printf("ratio %s/postgres: throughput %.3f", t.name(), ratio);
            r.operations().forEach((op, o) -> {
                YcsbResult.Operation base = postgres.operations().get(op);
                if (base != null && o.p50Us() > 0) {
                    out.printf(", %s p50 %.3f", op, base.p50Us() / o.p50Us());
                }
            });
            out.println(" (1.0 = as fast as PostgreSQL alone)");
        });
        restOverWire(results).ifPresent(ratio -> out.printf("ratio router/wire: throughput %.3f (1.0 = REST as fast as the wire protocol)%n", ratio));
        out.flush();
    }

    private static long total(YcsbResult r) {
        return Math.max(1, r.operations().values().stream().mapToLong(YcsbResult.Operation::count).sum());
    }
}
