package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code balance DB.COLL [--watch]}: the collection's distribution per shard (chunks from {@code config.chunks}, owned
 * documents and bytes from {@code $shardedDataDistribution}, a bar of each shard's share of the bytes) and the balancer's
 * view ({@code balancerStatus}, {@code balancerCollectionStatus}); with {@code --watch}, again every 2 s until compliant.
 */
@Command(name = "balance", mixinStandardHelpOptions = true,
        description = "Show a sharded collection's distribution per shard and whether the balancer considers it balanced.")
final class BalanceCommand implements Callable<Integer> {
    private static final Duration POLL = Duration.ofSeconds(2);
    private static final int BAR = 40;

    @Mixin
    HomeOption home;

    @Parameters(paramLabel = "DB.COLL", description = "the sharded collection, e.g. geo.cities")
    String namespace;

    @Option(names = "--watch", description = "repeat every 2 s until balancerCollectionStatus is compliant")
    boolean watch;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        LocalCluster cluster = home.running(new PrintWriter(System.err, true))
                .orElseThrow(() -> new IllegalStateException("no running cluster in " + home.dir() + "; start one with ./cluster up"));
        RouterClient router = new RouterClient(cluster.routerUrl(1), Duration.ofSeconds(60));
        while (true) {
            boolean compliant = print(router, out);
            if (!watch || compliant) {
                return compliant ? 0 : 1;
            }
            Thread.sleep(POLL);
        }
    }

    /** Prints one table; whether the collection is compliant. */
    private boolean print(RouterClient router, PrintWriter out) {
        BsonDocument status = ok(router, "admin", "{\"balancerStatus\": 1}");
        BsonDocument compliance = ok(router, "admin", "{\"balancerCollectionStatus\": \"" + namespace + "\"}");
        BsonValue uuid = ok(router, "config", "{\"find\": \"collections\", \"filter\": {\"_id\": \"" + namespace + "\"}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument().get("uuid");
        Map<String, Long> chunks = new TreeMap<>();
        RouterClient.requireOk("find config.chunks", router.run("config", new BsonDocument("find", new BsonString("chunks"))
                        .append("filter", new BsonDocument("uuid", uuid)))).getDocument("cursor").getArray("firstBatch")
                .forEach(c -> chunks.merge(c.asDocument().getString("shard").getValue(), 1L, Long::sum));
        Map<String, long[]> owned = new TreeMap<>();
        ok(router, "admin", "{\"aggregate\": 1, \"pipeline\": [{\"$shardedDataDistribution\": {}}], \"cursor\": {}}")
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument)
                .filter(d -> d.getString("ns").getValue().equals(namespace))
                .flatMap(d -> d.getArray("shards").stream().map(BsonValue::asDocument))
                .forEach(s -> owned.put(s.getString("shardName").getValue(), new long[] {
                        s.getNumber("numOwnedDocuments").longValue(), s.getNumber("ownedSizeBytes").longValue()}));
        long totalBytes = Math.max(1, owned.values().stream().mapToLong(v -> v[1]).sum());
        out.printf("%s  balancer %s, round%s %d; %s%n", namespace, status.getString("mode").getValue(),
                status.getBoolean("inBalancerRound").getValue() ? " running," : "", status.getNumber("numBalancerRounds").longValue(),
                compliance.getBoolean("balancerCompliant").getValue() ? "balanced"
                        : "not balanced: " + compliance.getString("firstComplianceViolation").getValue());
        String format = "%-10s %7s %12s %10s  %s%n";
        out.printf(format, "SHARD", "CHUNKS", "DOCUMENTS", "MB", "SHARE");
        Set<String> shards = new TreeSet<>(chunks.keySet());
        shards.addAll(owned.keySet());
        for (String shard : shards) {
            long[] counts = owned.getOrDefault(shard, new long[2]);
            int filled = (int) Math.round(BAR * (double) counts[1] / totalBytes);
            out.printf(format, shard, chunks.getOrDefault(shard, 0L), String.format("%,d", counts[0]),
                    String.format("%.1f", counts[1] / 1048576.0), "#".repeat(filled) + ".".repeat(BAR - filled));
        }
        out.flush();
        return compliance.getBoolean("balancerCompliant").getValue();
    }

    private static BsonDocument ok(RouterClient router, String db, String json) {
        return RouterClient.requireOk(json, router.run(db, ExtendedJson.parse(json)));
    }
}
