package dev.shardstore.cluster.bench;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The query engine's figures on the cities sample (docs/benchmarks.md): through a running cluster's router,
 * on {@code geo.cities} as {@code ./cluster demo} loads it (all on the database's primary shard), times
 * <ol>
 *   <li>an equality lookup {@code {country, name}} through the index {@code {country: 1, name: 1}},</li>
 *   <li>the same lookups with {@code hint: {$natural: 1}} (a collection scan),</li>
 *   <li>{@code $group} by country over the whole collection.</li>
 * </ol>
 * A benchmark, not a test: it prints figures. Each timing is taken after one warm-up round.
 *
 * <pre>
 * ./cluster demo
 * ./mvnw -q -o -pl local-cluster test-compile
 * java -cp "local-cluster/target/test-classes:local-cluster/target/local-cluster.jar:local-cluster/target/lib/*" \
 *   dev.shardstore.cluster.bench.CitiesQueryBenchmark http://localhost:8080 200
 * </pre>
 */
public final class CitiesQueryBenchmark {
    private CitiesQueryBenchmark() {}

    public static void main(String[] args) {
        RouterClient router = new RouterClient(args.length > 0 ? args[0] : "http://localhost:8080", Duration.ofMinutes(5));
        int lookups = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        run(router, "{\"createIndexes\": \"cities\", \"indexes\": [{\"key\": {\"country\": 1, \"name\": 1}, \"name\": \"country_1_name_1\"}]}");

        List<BsonDocument> keys = sampleKeys(router, lookups);
        for (String hint : new String[] {"", ", \"hint\": {\"$natural\": 1}"}) {
            int scanLookups = hint.isEmpty() ? keys.size() : Math.min(keys.size(), 20);
            timeLookups(router, keys.subList(0, Math.min(5, keys.size())), hint); // warm-up
            long start = System.nanoTime();
            timeLookups(router, keys.subList(0, scanLookups), hint);
            double ms = (System.nanoTime() - start) / 1e6 / scanLookups;
            System.out.printf("%-32s %8.2f ms per lookup (%d lookups)%n", hint.isEmpty() ? "indexed {country, name}" : "hint {$natural: 1} (COLLSCAN)", ms, scanLookups);
        }

        String group = "{\"aggregate\": \"cities\", \"cursor\": {}, \"pipeline\": [{\"$group\": {\"_id\": \"$country\", \"n\": {\"$sum\": 1}}}]}";
        run(router, group); // warm-up
        long start = System.nanoTime();
        int rounds = 3;
        for (int i = 0; i < rounds; i++) {
            run(router, group);
        }
        System.out.printf("%-32s %8.0f ms per aggregation over the whole collection%n", "$group by country", (System.nanoTime() - start) / 1e6 / rounds);
    }

    /** {country, name} of random cities, read once with a projection. */
    private static List<BsonDocument> sampleKeys(RouterClient router, int n) {
        BsonDocument reply = run(router, "{\"aggregate\": \"cities\", \"cursor\": {\"batchSize\": " + n + "}, \"pipeline\": [{\"$sample\": {\"size\": " + n
                + "}}, {\"$project\": {\"_id\": 0, \"country\": 1, \"name\": 1}}]}");
        List<BsonDocument> keys = new ArrayList<>();
        for (BsonValue v : reply.getDocument("cursor").getArray("firstBatch")) {
            keys.add(v.asDocument());
        }
        java.util.Collections.shuffle(keys, new Random(42));
        return keys;
    }

    private static void timeLookups(RouterClient router, List<BsonDocument> keys, String hint) {
        for (BsonDocument key : keys) {
            BsonDocument reply = run(router, "{\"find\": \"cities\", \"filter\": " + ExtendedJson.toJson(key) + hint + "}");
            if (reply.getDocument("cursor").getArray("firstBatch").isEmpty()) {
                throw new IllegalStateException("no city for " + key.toJson());
            }
        }
    }

    private static BsonDocument run(RouterClient router, String json) {
        return RouterClient.requireOk(json, router.run("geo", ExtendedJson.parse(json)));
    }
}
