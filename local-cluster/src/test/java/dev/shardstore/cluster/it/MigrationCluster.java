package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.infra.PostgresDurability;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A local cluster for the migration ITs (2 shards, 1 or 2 routers, test commands on, the local cluster's short
 * {@code orphanCleanupDelaySecs}) and what they ask of it: sharding and splitting a collection, the chunks from the
 * catalog, the shards' own view (their {@code /actuator/migrations}, owned and orphaned counts), fail points.
 */
final class MigrationCluster implements AutoCloseable {
    static final List<String> SHARDS = List.of("shard1", "shard2");

    final LocalCluster cluster;
    final RouterClient router;
    final FailPointClient failPoints;

    private MigrationCluster(LocalCluster cluster) {
        this.cluster = cluster;
        this.router = new RouterClient(cluster.routerUrl(1), Duration.ofMinutes(5));
        this.failPoints = new FailPointClient(cluster);
    }

    /** Starts the cluster with one router and its ports offset by {@code portOffset}. */
    static MigrationCluster start(String name, int portOffset) throws IOException {
        return start(name, portOffset, 1, List.of());
    }

    /**
     * Starts the cluster with {@code routers} routers (the first is {@link #router}), its ports offset by {@code portOffset}
     * and {@code moreJvmOptions} for every service.
     */
    static MigrationCluster start(String name, int portOffset, int routers, List<String> moreJvmOptions) throws IOException {
        return start(name, portOffset, routers, moreJvmOptions, PostgresDurability.fromSystemProperty());
    }

    /**
     * {@link #start(String, int, int, List)} with PostgreSQL's {@code durability} chosen by the test rather than the
     * suite (which asks for the fast setting): a test that kills PostgreSQL itself needs commits that survive it.
     */
    static MigrationCluster start(String name, int portOffset, int routers, List<String> moreJvmOptions, PostgresDurability durability)
            throws IOException {
        List<String> jvm = new ArrayList<>(ClusterOptions.DEFAULT_SERVICE_JVM_OPTIONS);
        jvm.addAll(moreJvmOptions);
        jvm.add("-Dshardstore.test-commands.enabled=true");
        jvm.add("-Dshardstore.shard.migration.orphan-cleanup-delay=2s");
        jvm.add("-Dshardstore.shard.migration.recovery-retry-interval=1s");
        LocalCluster cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect())
                .withHome(Files.createTempDirectory("shardstore-" + name + "-")).withShards(2).withRouters(routers).withPortOffset(portOffset)
                .withServiceJvmOptions(jvm).withDurability(durability), line -> System.out.println("[cluster] " + line));
        return new MigrationCluster(cluster);
    }

    BsonDocument ok(String db, String json) {
        return RouterClient.requireOk(json, router.run(db, ExtendedJson.parse(json)));
    }

    /**
     * Shards {@code db.coll} on {@code {x: 1}}, inserts {@code {_id: i, x: i}} for i in {@code [0, n)} and splits at
     * {@code splits}; all chunks are on the database's primary shard.
     */
    void shardAndFill(String db, String coll, int n, int... splits) {
        ok("admin", "{\"shardCollection\": \"" + db + "." + coll + "\", \"key\": {\"x\": 1}}");
        for (int from = 0; from < n; from += 1000) {
            BsonArray docs = new BsonArray();
            for (int i = from; i < Math.min(n, from + 1000); i++) {
                docs.add(new BsonDocument("_id", new BsonInt32(i)).append("x", new BsonInt32(i)));
            }
            BsonDocument inserted = RouterClient.requireOk("insert", router.run(db, new BsonDocument("insert", new BsonString(coll))
                    .append("documents", docs)));
            assertThat(inserted.getNumber("n").intValue()).isEqualTo(docs.size());
        }
        for (int split : splits) {
            ok("admin", "{\"split\": \"" + db + "." + coll + "\", \"middle\": {\"x\": " + split + "}}");
        }
    }

    /** {@code config.chunks} of {@code ns} through the router, in key order. */
    List<BsonDocument> chunks(String ns) {
        BsonDocument collection = ok("config", "{\"find\": \"collections\", \"filter\": {\"_id\": \"" + ns + "\"}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument();
        return router.run("config", new BsonDocument("find", new BsonString("chunks")).append("filter",
                        new BsonDocument("uuid", collection.get("uuid")))).getDocument("cursor").getArray("firstBatch")
                .stream().map(BsonValue::asDocument).toList();
    }

    /** The shard owning the chunk whose lower bound is {@code {x: min}}. */
    String ownerOf(String ns, int min) {
        return chunks(ns).stream().filter(c -> c.getDocument("min").isNumber("x") && c.getDocument("min").getNumber("x").intValue() == min)
                .findFirst().orElseThrow().getString("shard").getValue();
    }

    static String other(String shard) {
        return shard.equals("shard1") ? "shard2" : "shard1";
    }

    /** {@code moveChunk} of the chunk starting at {@code {x: min}} to {@code to}, through the router; the reply. */
    BsonDocument moveChunk(String ns, int min, String to) {
        return router.run("admin", ExtendedJson.parse("{\"moveChunk\": \"" + ns + "\", \"find\": {\"x\": " + min + "}, \"to\": \"" + to + "\"}"));
    }

    /** The count through the router. */
    long count(String db, String coll) {
        return ok(db, "{\"count\": \"" + coll + "\"}").getNumber("n").longValue();
    }

    /** {@code _shardsvrDataDistribution} of {@code ns} on {@code shard} itself. */
    BsonDocument distribution(String shard, String ns) {
        return ItSupport.onService(cluster, shard, "admin", new BsonDocument("_shardsvrDataDistribution", new BsonString(ns)));
    }

    /** The owned documents of {@code ns}, summed from the shards' own counts. */
    long ownedOnShards(String ns) {
        return ItSupport.ownedOnShards(cluster, SHARDS, ns);
    }

    /** A shard's {@code /actuator/migrations}. */
    BsonDocument migrations(String shard) {
        return ExtendedJson.parse(ItSupport.get(cluster.url(shard) + "/actuator/migrations"));
    }

    /** Whether no shard runs, recovers or holds a range deletion task of a migration of {@code ns} any more. */
    boolean settled(String ns) {
        for (String shard : SHARDS) {
            BsonDocument state;
            try {
                state = migrations(shard);
            } catch (RuntimeException e) {
                return false; // not answering yet (restarting)
            }
            for (String list : List.of("active", "coordinators", "rangeDeletions")) {
                if (state.getArray(list).stream().anyMatch(v -> v.asDocument().getString("ns").getValue().equals(ns))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Whether {@code service}'s process runs. */
    boolean running(String service) {
        return cluster.status().stream().anyMatch(c -> c.component().name().equals(service) && c.running());
    }

    @Override
    public void close() {
        cluster.stopAndDeleteData();
    }
}
