package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A sharded collection's distribution per shard as the router shows it: chunks from {@code config.chunks}, owned documents
 * and bytes from {@code $shardedDataDistribution} (a bar of each shard's share of the bytes), and the balancer's view
 * ({@code balancerStatus}, {@code balancerCollectionStatus}). Used by {@code balance} and {@code add-shard}.
 */
final class DistributionTable {
    private static final int BAR = 40;

    private DistributionTable() {
    }

    /** The namespaces of every sharded collection ({@code config.collections}), in catalog order. */
    static List<String> shardedCollections(RouterClient router) {
        return ok(router, "config", "{\"find\": \"collections\"}").getDocument("cursor").getArray("firstBatch").stream()
                .map(c -> c.asDocument().getString("_id").getValue()).toList();
    }

    /** How many shards {@code listShards} lists. */
    static int shardCount(RouterClient router) {
        return ok(router, "admin", "{\"listShards\": 1}").getArray("shards").size();
    }

    /** Chunks per shard id of {@code namespace}, by shard id. */
    static Map<String, Long> chunksPerShard(RouterClient router, String namespace) {
        BsonValue uuid = ok(router, "config", "{\"find\": \"collections\", \"filter\": {\"_id\": \"" + namespace + "\"}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument().get("uuid");
        Map<String, Long> chunks = new TreeMap<>();
        RouterClient.requireOk("find config.chunks", router.run("config", new BsonDocument("find", new BsonString("chunks"))
                        .append("filter", new BsonDocument("uuid", uuid)))).getDocument("cursor").getArray("firstBatch")
                .forEach(c -> chunks.merge(c.asDocument().getString("shard").getValue(), 1L, Long::sum));
        return chunks;
    }

    /** {@code balancerCollectionStatus}: whether the balancer would leave {@code namespace} as it is. */
    static boolean compliant(RouterClient router, String namespace) {
        return compliance(router, namespace).getBoolean("balancerCompliant").getValue();
    }

    /** Prints one table for {@code namespace}; whether it is compliant. */
    static boolean print(RouterClient router, String namespace, PrintWriter out) {
        BsonDocument status = ok(router, "admin", "{\"balancerStatus\": 1}");
        BsonDocument compliance = compliance(router, namespace);
        Map<String, Long> chunks = chunksPerShard(router, namespace);
        Map<String, long[]> owned = new TreeMap<>();
        ok(router, "admin", "{\"aggregate\": 1, \"pipeline\": [{\"$shardedDataDistribution\": {}}], \"cursor\": {}}")
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument)
                .filter(d -> d.getString("ns").getValue().equals(namespace))
                .flatMap(d -> d.getArray("shards").stream().map(BsonValue::asDocument))
                .forEach(s -> owned.put(s.getString("shardName").getValue(), new long[] {
                        s.getNumber("numOwnedDocuments").longValue(), s.getNumber("ownedSizeBytes").longValue()}));
        long totalBytes = Math.max(1, owned.values().stream().mapToLong(v -> v[1]).sum());
        boolean balanced = compliance.getBoolean("balancerCompliant").getValue();
        out.printf("%s  balancer %s, round%s %d; %s%n", namespace, status.getString("mode").getValue(),
                status.getBoolean("inBalancerRound").getValue() ? " running," : "", status.getNumber("numBalancerRounds").longValue(),
                balanced ? "balanced" : "not balanced: " + compliance.getString("firstComplianceViolation").getValue());
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
        return balanced;
    }

    private static BsonDocument compliance(RouterClient router, String namespace) {
        return ok(router, "admin", "{\"balancerCollectionStatus\": \"" + namespace + "\"}");
    }

    private static BsonDocument ok(RouterClient router, String db, String json) {
        return RouterClient.requireOk(json, router.run(db, ExtendedJson.parse(json)));
    }
}
