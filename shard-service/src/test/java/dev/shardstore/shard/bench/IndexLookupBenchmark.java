package dev.shardstore.shard.bench;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.event.CatalogEvent;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardServiceApplication;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Not a test: an indexed equality lookup against the same lookup forced to a collection scan
 * ({@code hint: {$natural: 1}}), on one shard process (embedded PostgreSQL + Kafka, config peer stubbed),
 * through the shard's HTTP command endpoint. Arguments: documents (default 100000), lookups per variant
 * (default 2000; the collection-scan variant runs a tenth of them).
 *
 * <pre>
 * ./mvnw -B -q -o -pl shard-service -am test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
 * java -cp shard-service/target/test-classes:shard-service/target/classes:$(cat shard-service/target/test-classpath.txt) \
 *   dev.shardstore.shard.bench.IndexLookupBenchmark 100000 2000
 * </pre>
 */
public final class IndexLookupBenchmark {
    private IndexLookupBenchmark() {}

    public static void main(String[] args) throws Exception {
        int documents = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int lookups = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        EmbeddedInfra infra = EmbeddedInfra.shared();
        createCatalogTopic(infra.bootstrapServers());
        List<String> springArgs = new ArrayList<>();
        infra.springProperties("shard_bench").forEach((k, v) -> springArgs.add("--" + k + "=" + v));
        springArgs.add("--server.port=0");
        springArgs.add("--shardstore.config-url=" + ConfigServerStub.instance().url());
        springArgs.add("--shardstore.shard.name=shard-bench");
        springArgs.add("--logging.level.root=WARN");
        try (ConfigurableApplicationContext app = SpringApplication.run(ShardServiceApplication.class, springArgs.toArray(String[]::new))) {
            String url = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
            CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(120));
            String db = "bench";
            client.run("shard", url, db, ExtendedJson.parse("{drop: 'people'}"));
            long loadStart = System.nanoTime();
            for (int start = 0; start < documents; start += 1000) {
                BsonArray batch = new BsonArray();
                for (int i = start; i < Math.min(documents, start + 1000); i++) {
                    batch.add(new BsonDocument("_id", new BsonInt32(i))
                            .append("email", new BsonString("user" + i + "@example.org"))
                            .append("country", new BsonString("C" + (i % 200)))
                            .append("pad", new BsonString("x".repeat(100))));
                }
                client.run("shard", url, db, new BsonDocument("insert", new BsonString("people")).append("documents", batch));
            }
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            long buildStart = System.nanoTime();
            BsonDocument built = client.run("shard", url, db,
                    ExtendedJson.parse("{createIndexes: 'people', indexes: [{key: {email: 1}, name: 'email_1', unique: true}]}"));
            double buildSeconds = (System.nanoTime() - buildStart) / 1e9;
            System.out.printf("loaded %d documents in %.1f s; built unique index in %.2f s (%s)%n", documents, loadSeconds, buildSeconds, built.toJson());

            long indexedLoadStart = System.nanoTime();
            int extra = Math.max(1000, documents / 5);
            for (int start = documents; start < documents + extra; start += 1000) {
                BsonArray batch = new BsonArray();
                for (int i = start; i < start + 1000; i++) {
                    batch.add(new BsonDocument("_id", new BsonInt32(i))
                            .append("email", new BsonString("user" + i + "@example.org"))
                            .append("country", new BsonString("C" + (i % 200)))
                            .append("pad", new BsonString("x".repeat(100))));
                }
                client.run("shard", url, db, new BsonDocument("insert", new BsonString("people")).append("documents", batch));
            }
            double indexedLoadSeconds = (System.nanoTime() - indexedLoadStart) / 1e9;
            System.out.printf("insert rate: %.0f docs/s without secondary index, %.0f docs/s with the unique index%n",
                    documents / loadSeconds, extra / indexedLoadSeconds);
            documents += extra;

            SplittableRandom random = new SplittableRandom(42);
            for (int round = 0; round < 2; round++) { // round 0 warms up
                double indexed = measure(client, url, db, random, documents, lookups, false);
                double scanned = measure(client, url, db, random, documents, Math.max(1, lookups / 10), true);
                double byId = measureById(client, url, db, random, documents, lookups);
                System.out.printf("%s indexed equality: %.3f ms/lookup (%.0f/s); hint {$natural: 1}: %.1f ms/lookup; ratio %.0fx;"
                        + " _id lookup (baseline, primary key): %.3f ms%n",
                        round == 0 ? "warm-up" : "measured", indexed, 1000 / indexed, scanned, scanned / indexed, byId);
            }
            BsonDocument explain = client.run("shard", url, db, ExtendedJson.parse(
                    "{explain: {find: 'people', filter: {email: 'user7@example.org'}}, verbosity: 'executionStats'}"));
            System.out.println("explain: " + explain.getDocument("queryPlanner").getDocument("winningPlan").toJson()
                    + " " + explain.getDocument("executionStats").toJson());
        }
        System.exit(0);
    }

    /** Average milliseconds per lookup of a random existing email. */
    private static double measure(CommandClient client, String url, String db, SplittableRandom random, int documents, int n,
            boolean natural) {
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            BsonDocument find = new BsonDocument("find", new BsonString("people"))
                    .append("filter", new BsonDocument("email", new BsonString("user" + random.nextInt(documents) + "@example.org")));
            if (natural) {
                find.append("hint", new BsonDocument("$natural", new BsonInt32(1)));
            }
            BsonDocument reply = client.run("shard", url, db, find);
            if (reply.getDocument("cursor").getArray("firstBatch").size() != 1) {
                throw new IllegalStateException("lookup failed: " + reply.toJson());
            }
        }
        return (System.nanoTime() - start) / 1e6 / n;
    }

    /** Average milliseconds per {@code _id} equality lookup (IDHACK: the same HTTP path, the primary key). */
    private static double measureById(CommandClient client, String url, String db, SplittableRandom random, int documents, int n) {
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            BsonDocument find = new BsonDocument("find", new BsonString("people"))
                    .append("filter", new BsonDocument("_id", new BsonInt32(random.nextInt(documents))));
            if (client.run("shard", url, db, find).getDocument("cursor").getArray("firstBatch").size() != 1) {
                throw new IllegalStateException("lookup by _id failed");
            }
        }
        return (System.nanoTime() - start) / 1e6 / n;
    }

    private static void createCatalogTopic(String bootstrapServers) throws InterruptedException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.createTopics(List.of(new NewTopic(CatalogEvent.TOPIC, 1, (short) 1))).all().get();
        } catch (ExecutionException e) {
            // exists already
        }
    }
}
