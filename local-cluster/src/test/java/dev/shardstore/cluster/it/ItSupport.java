package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.transport.http.CommandClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * What every end-to-end class needs besides its cluster: plain GETs (Actuator), draining a cursor, waiting for a
 * condition, reading a sharded collection's chunks and per-country counts through a router, and commands sent to one
 * service itself.
 */
final class ItSupport {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    /** Sends commands to a service itself, as its peers do (a shard's commands unversioned: orphans included). */
    private static final CommandClient SERVICES = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(90));
    /** The same for clusters with a cluster key, which it proves, by the cluster's home. */
    private static final Map<Path, CommandClient> MEMBERS = new ConcurrentHashMap<>();

    private ItSupport() {}

    /** The client that reaches {@code cluster}'s services themselves: one sending the cluster's key when it has one. */
    private static CommandClient clientFor(LocalCluster cluster) {
        return cluster.clusterKey().map(key -> MEMBERS.computeIfAbsent(cluster.home().dir(),
                home -> new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(90), null, key))).orElse(SERVICES);
    }

    /**
     * Starts a cluster of {@code shards} shards and one router with every port shifted by {@code portOffset} and a balancer
     * round every second (a quarter of a second after one that balanced something), in a fresh temporary home named
     * after {@code name}; its lines are printed with {@code [cluster]}.
     *
     * @param jvmOptions further options for every service, e.g. {@code -Dshardstore.balancer.snapshot-history-window=15s}
     */
    static LocalCluster startWithFastBalancer(String name, int shards, int portOffset, String... jvmOptions) throws IOException {
        List<String> jvm = new ArrayList<>(ClusterOptions.DEFAULT_SERVICE_JVM_OPTIONS);
        jvm.add("-Dshardstore.balancer.round-interval=1s");
        // after a round that balanced something the next starts a quarter of a second later (the default, MongoDB's, is 1 s):
        // these tests move dozens of chunks one round at a time, so the pause is most of their time
        jvm.add("-Dshardstore.balancer.short-round-interval=250ms");
        jvm.addAll(List.of(jvmOptions));
        return LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect()).withHome(Files.createTempDirectory("shardstore-" + name + "-it-"))
                .withShards(shards).withRouters(1).withPortOffset(portOffset).withServiceJvmOptions(jvm), line -> System.out.println("[cluster] " + line));
    }

    /** Every document of the cursor {@code reply} opened on {@code db.collection}, through getMores to {@code router}. */
    static List<BsonDocument> drain(RouterClient router, String db, String collection, BsonDocument reply) {
        List<BsonDocument> out = new ArrayList<>();
        BsonDocument cursor = reply.getDocument("cursor");
        cursor.getArray("firstBatch").forEach(v -> out.add(v.asDocument()));
        long id = cursor.getNumber("id").longValue();
        while (id != 0) {
            cursor = RouterClient.requireOk("getMore", router.run(db, new BsonDocument("getMore", new BsonInt64(id))
                    .append("collection", new BsonString(collection)))).getDocument("cursor");
            cursor.getArray("nextBatch").forEach(v -> out.add(v.asDocument()));
            id = cursor.getNumber("id").longValue();
        }
        return out;
    }

    /** The body of a GET of {@code url} (an Actuator endpoint, usually). */
    static String get(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code POST /actuator/catalogEvents {"state": state}} on a router: stops or resumes its catalog event consumer. */
    static void setCatalogEvents(RouterClient router, String state) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(router.url() + "/actuator/catalogEvents"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"state\": \"" + state + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isBetween(200, 204);
    }

    /**
     * Polls {@code condition} every 200 ms until it holds; fails naming {@code what} after {@code timeout}. A condition that
     * throws a RuntimeException counts as not yet met (a component it asks may be restarting); the last such failure is the
     * timeout's cause.
     */
    static void waitUntil(BooleanSupplier condition, Duration timeout, String what) {
        await(what).atMost(timeout).pollInterval(Duration.ofMillis(200)).ignoreExceptionsInstanceOf(RuntimeException.class)
                .until(condition::getAsBoolean);
    }

    /** Runs {@code json} on {@code db} through {@code router} and returns its reply, failing with it unless it is ok. */
    static BsonDocument ok(RouterClient router, String db, String json) {
        return RouterClient.requireOk(json, router.run(db, dev.shardstore.contracts.bson.ExtendedJson.parse(json)));
    }

    /** The {@code config.chunks} entries of sharded collection {@code ns}, read through {@code router}. */
    static List<BsonDocument> chunks(RouterClient router, String ns) {
        BsonValue uuid = firstBatch(router, "collections", new BsonDocument("_id", new BsonString(ns))).getFirst().get("uuid");
        return firstBatch(router, "chunks", new BsonDocument("uuid", uuid));
    }

    /** The number of chunks of {@code ns} per shard, by shard name. */
    static Map<String, Long> chunksPerShard(RouterClient router, String ns) {
        Map<String, Long> perShard = new TreeMap<>();
        chunks(router, ns).forEach(c -> perShard.merge(c.getString("shard").getValue(), 1L, Long::sum));
        return perShard;
    }

    /** The documents of {@code config.<collection>} matching {@code filter}, read through {@code router}. */
    static List<BsonDocument> firstBatch(RouterClient router, String collection, BsonDocument filter) {
        BsonDocument command = new BsonDocument("find", new BsonString(collection)).append("filter", filter);
        return RouterClient.requireOk(command.toJson(), router.run("config", command))
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    /** The number of documents per {@code country} of {@code db.coll}, by an aggregation through {@code router}. */
    static Map<String, Long> countsByCountry(RouterClient router, String db, String coll) {
        Map<String, Long> actual = new TreeMap<>();
        String json = "{\"aggregate\": \"" + coll + "\", \"pipeline\": [{\"$group\": {\"_id\": \"$country\", \"n\": {\"$sum\": 1}}}],"
                + " \"cursor\": {\"batchSize\": 1000}}";
        RouterClient.requireOk(json, router.run(db, dev.shardstore.contracts.bson.ExtendedJson.parse(json)))
                .getDocument("cursor").getArray("firstBatch")
                .forEach(v -> actual.put(v.asDocument().getString("_id").getValue(), v.asDocument().getNumber("n").longValue()));
        return actual;
    }

    /**
     * {@code command} on database {@code db} of {@code service} itself (a shard or the config service), not through a
     * router.
     *
     * @throws dev.shardstore.contracts.error.CommandException when it answers {@code ok: 0} or cannot be reached
     */
    static BsonDocument onService(LocalCluster cluster, String service, String db, BsonDocument command) {
        return clientFor(cluster).runChecked(service, cluster.url(service), db, command);
    }

    /**
     * {@code read} made causally after every write any of {@code shards} has made or decided: the newest
     * {@code $clusterTime} of the shards' replies to {@code ping}, as {@code $clusterTime} (signed by the shard, so a
     * router takes it from a client) and as {@code readConcern.afterClusterTime}. A read through a router then sees
     * every transaction whose commit was answered, also one whose coordinator answered once its decision was durable and
     * is still delivering it (docs/architecture.md "Multi-document transactions").
     */
    static BsonDocument afterEveryShard(LocalCluster cluster, Collection<String> shards, BsonDocument read) {
        BsonDocument newest = null;
        for (String shard : shards) {
            BsonDocument time = replyOf(cluster, shard, "admin", new BsonDocument("ping", new org.bson.BsonInt32(1))).getDocument("$clusterTime");
            if (newest == null || time.getTimestamp("clusterTime").compareTo(newest.getTimestamp("clusterTime")) > 0) {
                newest = time;
            }
        }
        if (newest == null) {
            throw new IllegalArgumentException("no shards");
        }
        return read.append("$clusterTime", newest).append("readConcern", new BsonDocument("afterClusterTime", newest.getTimestamp("clusterTime")));
    }

    /** {@code command} sent to the service itself as {@link #onService} does; the reply as it is, an error reply too. */
    static BsonDocument replyOf(LocalCluster cluster, String service, String db, BsonDocument command) {
        return clientFor(cluster).run(service, cluster.url(service), db, command);
    }

    /** The documents of {@code ns} the {@code shards} own, summed from their own {@code _shardsvrDataDistribution}. */
    static long ownedOnShards(LocalCluster cluster, Collection<String> shards, String ns) {
        return shards.stream().mapToLong(s -> onService(cluster, s, "admin",
                new BsonDocument("_shardsvrDataDistribution", new BsonString(ns))).getNumber("numOwnedDocuments").longValue()).sum();
    }

    /** Sets the cluster's chunk size in MB on the config service (the router has no path to config.settings yet). */
    static void setChunkSizeMb(LocalCluster cluster, int megabytes) {
        onService(cluster, "config", "admin", new BsonDocument("_configsvrSetSettings", new BsonString("chunksize"))
                .append("set", new BsonDocument("value", new BsonInt32(megabytes))));
    }

    /** Every document of {@code db.coll} stored on {@code shard} (an unversioned find on the shard: orphans included). */
    static List<BsonDocument> storedOn(LocalCluster cluster, String shard, String db, String coll) {
        return onService(cluster, shard, db, new BsonDocument("find", new BsonString(coll)).append("batchSize", new BsonInt32(100_000)))
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }
}
