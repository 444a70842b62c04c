package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.support.command.CommandRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A seeded fuzz test of the router's client API (hardening issue, item 5): a few thousand hostile requests
 * ({@link HostileRequests}: mutated valid commands for every name the router's {@link CommandRegistry} knows, on a
 * normal database, {@code admin} and {@code config}, plus the resource-style endpoints) against the real router over
 * HTTP, with the {@link FakeCluster}'s stub shards and config service behind it. Each answer must come within the
 * timeout, must not be a 5xx other than 503/504 (a peer that did not answer), and when it is not a 2xx must be a
 * problem+json body with MongoDB's {@code code} and {@code codeName}.
 *
 * <p>The suite runs one fixed seed, so CI is deterministic; {@code -Dshardstore.seed=N} runs (or replays) another,
 * {@code -Dshardstore.fuzz.cases=N} changes its length (default 3,000). The seed is printed.
 */
class CommandFuzzTest extends RouterAgainstFakeCluster {
    /** The suite's seed: a fresh one per run made CI depend on what a run happened to draw. */
    private static final long DEFAULT_SEED = 20_261_124L;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Autowired
    CommandRegistry registry;

    /** Valid commands to mutate, by name; names missing here get a generic seed. */
    private static final Map<String, List<String>> SEEDS = Map.ofEntries(
            Map.entry("insert", List.of("{insert: 'c', documents: [{x: 1, g: 'a'}, {_id: 2, x: -5}], ordered: false}",
                    "{insert: 'u', documents: [{_id: {a: 1}, v: [1, 2]}]}")),
            Map.entry("find", List.of("{find: 'c', filter: {x: {$gte: 0, $lt: 50}, g: 'a'}, sort: {x: -1}, projection: {x: 1}, skip: 1, limit: 5, batchSize: 2}",
                    "{find: 'u', filter: {$or: [{a: 1}, {b: {$in: [1, 2]}}]}, hint: {a: 1}, singleBatch: true}",
                    "{find: 'chunks', filter: {uuid: 1}}")),
            Map.entry("aggregate", List.of("{aggregate: 'c', pipeline: [{$match: {x: {$gt: 0}}}, {$group: {_id: '$g', n: {$sum: 1}, m: {$max: '$x'}}}, {$sort: {n: -1}}, {$limit: 3}], cursor: {batchSize: 10}}",
                    "{aggregate: 'u', pipeline: [{$project: {y: {$add: ['$x', 1]}}}, {$unwind: '$y'}, {$facet: {a: [{$count: 'n'}]}}], cursor: {}}",
                    "{aggregate: 1, pipeline: [{$shardedDataDistribution: {}}], cursor: {}}")),
            Map.entry("getMore", List.of("{getMore: {$numberLong: '12345'}, collection: 'c', batchSize: 10}")),
            Map.entry("killCursors", List.of("{killCursors: 'c', cursors: [{$numberLong: '12345'}]}")),
            Map.entry("update", List.of("{update: 'c', updates: [{q: {x: 5}, u: {$set: {a: 1}, $inc: {n: 2}}}, {q: {g: 'a'}, u: {$unset: {a: ''}}, multi: true}]}",
                    "{update: 'u', updates: [{q: {_id: 1}, u: {_id: 1, v: 2}, upsert: true}], ordered: false}",
                    "{update: 'c', updates: [{q: {x: 1}, u: {$push: {arr: {$each: [1, 2], $slice: -1}}}, arrayFilters: [{'e.a': 1}]}]}")),
            Map.entry("delete", List.of("{delete: 'c', deletes: [{q: {x: 3}, limit: 1}, {q: {g: 'b'}, limit: 0}]}")),
            Map.entry("count", List.of("{count: 'c', query: {x: {$gt: 0}}, limit: 10, skip: 1}")),
            Map.entry("distinct", List.of("{distinct: 'c', key: 'g', query: {x: {$lt: 0}}}")),
            Map.entry("findAndModify", List.of("{findAndModify: 'c', query: {x: 7}, update: {$set: {a: 1}}, new: true, upsert: true, sort: {x: 1}, fields: {a: 1}}",
                    "{findAndModify: 'u', query: {_id: 1}, remove: true}")),
            Map.entry("findandmodify", List.of("{findandmodify: 'c', query: {x: 7}, update: {$inc: {n: 1}}}")),
            Map.entry("create", List.of("{create: 'newcoll'}")),
            Map.entry("drop", List.of("{drop: 'gone'}")),
            Map.entry("dropDatabase", List.of("{dropDatabase: 1}")),
            Map.entry("listDatabases", List.of("{listDatabases: 1, nameOnly: false}")),
            Map.entry("listCollections", List.of("{listCollections: 1, filter: {name: 'c'}, nameOnly: true}")),
            Map.entry("createIndexes", List.of("{createIndexes: 'c', indexes: [{key: {g: 1, x: -1}, name: 'g_x', unique: false, partialFilterExpression: {x: {$gt: 0}}}]}")),
            Map.entry("listIndexes", List.of("{listIndexes: 'c', cursor: {batchSize: 1}}")),
            Map.entry("dropIndexes", List.of("{dropIndexes: 'c', index: 'g_x'}", "{dropIndexes: 'c', index: ['a_1', 'b_1']}")),
            Map.entry("explain", List.of("{explain: {find: 'c', filter: {x: 1}}, verbosity: 'executionStats'}",
                    "{explain: {aggregate: 'c', pipeline: [{$match: {x: 1}}], cursor: {}}}",
                    "{explain: {update: 'c', updates: [{q: {x: 1}, u: {$set: {a: 1}}}]}}")),
            Map.entry("ping", List.of("{ping: 1}")),
            Map.entry("buildInfo", List.of("{buildInfo: 1}")),
            Map.entry("addShard", List.of("{addShard: 'http://127.0.0.1:9', name: 'sh9'}")),
            Map.entry("listShards", List.of("{listShards: 1}")),
            Map.entry("shardCollection", List.of("{shardCollection: 'fuzz.s', key: {x: 1}, unique: false}",
                    "{shardCollection: 'fuzz.h', key: {_id: 'hashed'}, numInitialChunks: 4}")),
            Map.entry("split", List.of("{split: 'fuzz.c', middle: {x: 10}}", "{split: 'fuzz.c', find: {x: 3}}",
                    "{split: 'fuzz.c', bounds: [{x: {$minKey: 1}}, {x: 0}]}")),
            Map.entry("mergeChunks", List.of("{mergeChunks: 'fuzz.c', bounds: [{x: {$minKey: 1}}, {x: {$maxKey: 1}}]}")));

    @Test
    void hostileCommandsAreAnsweredWithoutA5xxOrAnUnstructuredBody() throws Exception {
        long seed = Long.getLong("shardstore.seed", DEFAULT_SEED);
        int cases = Integer.getInteger("shardstore.fuzz.cases", 3000);
        System.out.println("CommandFuzzTest: seed " + seed + ", " + cases + " cases (replay with -Dshardstore.seed=" + seed + ")");
        CLUSTER.shardCollection("fuzz.c", new BsonDocument("x", new BsonInt32(1)), List.<BsonValue>of(new BsonInt32(0)), List.of("sh1", "sh2"));
        List<String> names = List.copyOf(registry.names());
        assertThat(names).contains("find", "insert", "shardCollection");

        long generating = System.nanoTime();
        HostileRequests requests = new HostileRequests(seed, names, SEEDS);
        List<HostileRequests.Request> all = new ArrayList<>(cases);
        for (int i = 0; i < cases; i++) {
            all.add(requests.next());
        }
        System.out.printf("CommandFuzzTest: generated in %d ms, %d MB of bodies%n", (System.nanoTime() - generating) / 1_000_000,
                all.stream().mapToLong(r -> r.body() == null ? 0 : r.body().length()).sum() >> 20);
        Map<String, AtomicInteger> statuses = new ConcurrentHashMap<>();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        long start = System.nanoTime();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < all.size(); i++) {
                int index = i;
                sent.add(pool.submit(() -> {
                    String problem = check(http, all.get(index), statuses);
                    if (problem != null) {
                        failures.add("case " + index + ": " + problem + "\n    request: " + all.get(index).describe());
                    }
                }));
            }
            for (Future<?> f : sent) {
                f.get();
            }
        }
        System.out.printf("CommandFuzzTest: %d cases in %d ms, statuses %s%n", cases, (System.nanoTime() - start) / 1_000_000, new TreeMap<>(statuses));
        failures.forEach(f -> System.out.println("CommandFuzzTest failure " + f.replace('\n', ' ')));

        assertThat(failures).as("seed %d: %d of %d cases failed, first ones:%n%s", seed, failures.size(), cases,
                String.join("\n", failures.subList(0, Math.min(20, failures.size())))).isEmpty();
        // the mutations must not all be refused at the door: some get through to the shards
        assertThat(statuses.getOrDefault("200", new AtomicInteger()).get()).isGreaterThan(cases / 20);
    }

    /** Sends one request; null when the answer meets the contract, else what is wrong with it. */
    private String check(HttpClient http, HostileRequests.Request request, Map<String, AtomicInteger> statuses) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://localhost:" + port + request.path())).timeout(TIMEOUT);
        if (request.body() != null) {
            builder.header("Content-Type", "application/json");
        }
        builder.method(request.method(), request.body() == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(request.body()));
        HttpResponse<String> response;
        try {
            response = http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            return "no answer within " + TIMEOUT.toSeconds() + " s";
        } catch (Exception e) {
            return "request failed: " + e;
        }
        int status = response.statusCode();
        if (status >= 500 && status != 503 && status != 504) {
            return "HTTP " + status + ": " + excerpt(response.body());
        }
        if (status >= 200 && status < 300) {
            tally(statuses, String.valueOf(status));
            return null;
        }
        String type = response.headers().firstValue("Content-Type").orElse("");
        if (!type.startsWith("application/problem+json")) {
            return "HTTP " + status + " with Content-Type '" + type + "': " + excerpt(response.body());
        }
        try {
            BsonDocument body = ExtendedJson.parse(response.body());
            if (!body.isInt32("code") || !body.isString("codeName") || !body.isString("requestId")) {
                return "HTTP " + status + " problem without code, codeName or requestId: " + excerpt(response.body());
            }
            tally(statuses, status + " " + body.getString("codeName").getValue());
        } catch (RuntimeException e) {
            return "HTTP " + status + " problem that is not JSON (" + e.getMessage() + "): " + excerpt(response.body());
        }
        return null;
    }

    private static void tally(Map<String, AtomicInteger> statuses, String outcome) {
        statuses.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
    }

    private static String excerpt(String text) {
        return text.length() > 400 ? text.substring(0, 400) + "..." : text;
    }
}
