package dev.shardstore.console;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.BsonDocument;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The collection map's server time at N chunks (docs/benchmarks.md "The console's collection map"): the console, in
 * this JVM, against a {@link StandIn} router that answers its commands from memory (a collection of N chunks on 3
 * shards, {@code config.chunks} in batches of 1,000 through {@code getMore}, and the console's refresh filter, the
 * chunks newer than a version or jumbo). Times each request's full exchange on localhost (this JVM's HTTP client), median
 * and maximum of R requests after W warm-up requests (and the very first request of each kind, the first one reading
 * the chunks whole), for: the first paint; a live update whose browser holds the
 * current map (the map is not sent again); and a live update after a chunk moved (the map is sent again).
 *
 * <pre>{@code
 * ./mvnw -B -q -o -pl console-service test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
 * java -Xmx384m -cp console-service/target/test-classes:console-service/target/classes:$(cat console-service/target/test-classpath.txt) \
 *   dev.shardstore.console.CollectionMapBenchmark 10000 15 10
 * }</pre>
 */
public final class CollectionMapBenchmark {
    private static final String UUID = "{\"$uuid\": \"0f0c8e9e-0000-4000-8000-0000000000b1\"}";
    private static final String NS = "geo.cities";
    private static final int BATCH = 1000;
    private static final Pattern KNOWN = Pattern.compile("known=([0-9a-f]+-\\d+)");

    private final List<String> chunks = new ArrayList<>();
    /** Each chunk's {@code lastmod.major}, for the refresh filter without parsing the chunks. */
    private int[] majors;
    private final Map<Long, Integer> cursors = new ConcurrentHashMap<>();
    private final AtomicInteger nextCursor = new AtomicInteger(1);
    private final AtomicInteger major = new AtomicInteger(1);
    private StandIn router;

    private CollectionMapBenchmark() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int requests = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        new CollectionMapBenchmark().run(n, requests, warmup);
    }

    private static String chunk(int i, int n, String shard, int major, int minor) {
        String min = i == 0 ? "{\"$minKey\": 1}" : String.valueOf(i * 100);
        String max = i == n - 1 ? "{\"$maxKey\": 1}" : String.valueOf((i + 1) * 100);
        return "{\"uuid\": " + UUID + ", \"min\": {\"k\": " + min + "}, \"max\": {\"k\": " + max + "}, \"shard\": \"" + shard
                + "\", \"lastmod\": {\"major\": " + major + ", \"minor\": " + minor + "}, \"jumbo\": false}";
    }

    private void run(int n, int requests, int warmup) throws Exception {
        majors = new int[n];
        for (int i = 0; i < n; i++) {
            chunks.add(chunk(i, n, "shard" + (1 + i * 3 / n), 1, i));
            majors[i] = 1;
        }
        router = new StandIn(this::answer);
        String url = router.url();
        ConfigurableApplicationContext console = new SpringApplication(ConsoleApplication.class).run("--server.port=0",
                "--shardstore.console.router-urls=" + url, "--shardstore.console.config-url=" + url, "--shardstore.console.balancer-url=" + url,
                "--shardstore.console.session-url=" + url, "--shardstore.console.resharding-url=" + url, "--logging.level.root=WARN");
        try {
            String base = "http://localhost:" + console.getEnvironment().getProperty("local.server.port");
            HttpClient http = HttpClient.newHttpClient();
            String page = base + "/collections/" + NS + "?width=documents";
            String live = base + "/live/collections/" + NS + "?width=documents";
            System.out.printf("%d chunks, %d requests after %d warm-up ones; median / max in ms, body bytes%n", n, requests, warmup);
            measure("first paint", http, requests, warmup, () -> page);
            measure("live update, map unchanged (kept by the browser)", http, requests, warmup,
                    () -> live + "&known=" + known(http, live));
            measure("live update after a chunk moved (map sent again)", http, requests, warmup, () -> {
                String known = known(http, live);
                move(n);
                return live + "&known=" + known;
            });
        } finally {
            console.close();
            router.close();
        }
    }

    /** The map version the live part's {@code hx-get} carries now (a browser holding the current map). */
    private static String known(HttpClient http, String live) throws Exception {
        Matcher m = KNOWN.matcher(http.send(HttpRequest.newBuilder(URI.create(live)).build(), HttpResponse.BodyHandlers.ofString()).body());
        if (!m.find()) {
            throw new IllegalStateException("no map version in the live part");
        }
        return m.group(1);
    }

    /** Moves the middle chunk to the next shard with a new major version, as a migration commits. */
    private synchronized void move(int n) {
        int i = n / 2;
        BsonDocument chunk = BsonDocument.parse(chunks.get(i));
        String owner = chunk.getString("shard").getValue();
        String next = "shard" + (owner.charAt(owner.length() - 1) - '0') % 3 + 1;
        majors[i] = major.incrementAndGet();
        chunks.set(i, chunk(i, n, next, majors[i], 0));
    }

    @FunctionalInterface
    private interface Target {
        String url() throws Exception;
    }

    private static void measure(String what, HttpClient http, int requests, int warmup, Target target) throws Exception {
        double[] millis = new double[requests];
        long bytes = 0;
        for (int i = 0; i < warmup + requests; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(target.url())).build();
            long begin = System.nanoTime();
            HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            double took = (System.nanoTime() - begin) / 1e6;
            if (response.statusCode() != 200) {
                throw new IllegalStateException(what + ": HTTP " + response.statusCode());
            }
            if (i == 0) {
                System.out.printf("%-52s %7.1f (the first request)%n", what, took);
            }
            if (i >= warmup) {
                millis[i - warmup] = took;
                bytes = response.body().length;
            }
        }
        Arrays.sort(millis);
        System.out.printf("%-52s %7.1f %7.1f %10d%n", what, millis[requests / 2], millis[requests - 1], bytes);
    }

    private synchronized StandIn.Answer answer(StandIn.Request request) {
        String path = request.path();
        if (path.endsWith("/actuator/health")) {
            return StandIn.Answer.json("{\"status\": \"UP\"}");
        }
        if (path.endsWith("/actuator/migrations")) {
            return StandIn.Answer.json("{\"active\": [], \"rangeDeletions\": []}");
        }
        BsonDocument command = request.command();
        String name = command == null ? "" : command.getFirstKey();
        String host = router.url();
        return StandIn.Answer.json(switch (name) {
            case "listShards" -> "{\"shards\": [{\"_id\": \"shard1\", \"host\": \"" + host + "/shard1\"}, {\"_id\": \"shard2\", \"host\": \"" + host
                    + "/shard2\"}, {\"_id\": \"shard3\", \"host\": \"" + host + "/shard3\"}], \"ok\": 1}";
            case "aggregate" -> StandIn.cursor("{\"ns\": \"" + NS + "\", \"shards\": [{\"shardName\": \"shard1\", \"numOwnedDocuments\": 300000,"
                    + " \"ownedSizeBytes\": 30000000}, {\"shardName\": \"shard2\", \"numOwnedDocuments\": 200000, \"ownedSizeBytes\": 20000000},"
                    + " {\"shardName\": \"shard3\", \"numOwnedDocuments\": 100000, \"ownedSizeBytes\": 10000000}]}");
            case "find" -> switch (command.getString("find").getValue()) {
                case "collections" -> StandIn.cursor("{\"_id\": \"" + NS + "\", \"key\": {\"k\": 1}, \"uuid\": " + UUID + "}");
                case "chunks" -> command.getDocument("filter").containsKey("$or") ? StandIn.cursor(String.join(", ", changed(command)))
                        : batch(0, "firstBatch");
                default -> StandIn.cursor("");
            };
            case "getMore" -> batch(cursors.remove(command.getNumber("getMore").longValue()), "nextBatch");
            default -> "{\"ok\": 0, \"errmsg\": \"no such command: '" + name + "'\", \"code\": 59, \"codeName\": \"CommandNotFound\"}";
        });
    }

    /** The chunks newer than the filter's version (the console's refresh; no chunk is jumbo here). */
    private List<String> changed(BsonDocument command) {
        int newerThan = command.getDocument("filter").getArray("$or").get(0).asDocument().getDocument("lastmod.major").getNumber("$gt").intValue();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < majors.length; i++) {
            if (majors[i] > newerThan) {
                out.add(chunks.get(i));
            }
        }
        return out;
    }

    private String batch(int offset, String field) {
        int end = Math.min(chunks.size(), offset + BATCH);
        long id = 0;
        if (end < chunks.size()) {
            id = nextCursor.getAndIncrement();
            cursors.put(id, end);
        }
        return "{\"cursor\": {\"" + field + "\": [" + String.join(", ", chunks.subList(offset, end)) + "], \"id\": " + id + "}, \"ok\": 1}";
    }
}
