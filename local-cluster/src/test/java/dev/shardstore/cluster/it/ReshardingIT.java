package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * reshardCollection through the router on real processes (3 shards, ports offset 3450), as far as this version goes
 * (docs/architecture.md "Resharding"): the router forwards it to the resharding service, whose coordinator registers the
 * operation with the config service (the collection held: its drop is ConflictingOperationInProgress meanwhile), starts
 * the donors (their {@code minFetchTimestamp} gives the {@code cloneTimestamp}) and, the shards' clone not being built
 * yet, aborts at cloning: the command fails with ReshardCollectionAborted (341), the collection stays as it was and
 * usable, and the hold is released. The collection's own key is no change; options not implemented are refused naming
 * them; abortReshardCollection after a commit is ReshardCollectionCommitted (340), with no operation
 * NoSuchReshardCollection (339).
 */
class ReshardingIT {
    private static final String DB = "rs";
    private static final List<String> COUNTRIES = List.of("FR", "DE", "JP", "BR", "NZ");
    private static final int DOCUMENTS = 300;

    private static LocalCluster cluster;
    private static RouterClient router;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect()).withHome(Files.createTempDirectory("shardstore-resharding-it-"))
                .withShards(3).withRouters(1).withPortOffset(3450), line -> System.out.println("[cluster] " + line));
        router = new RouterClient(cluster.routerUrl(1), Duration.ofSeconds(120));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.stopAndDeleteData();
        }
    }

    @Test
    void aNewKeyAbortsAtCloningForNowAndLeavesTheCollectionAsItWasAndReleased() {
        String ns = fill("cities");

        BsonDocument reply = router.run("admin", reshard(ns, "{\"country\": 1}"));

        assertThat(code(reply)).as("%s", reply).isEqualTo(341);
        assertThat(reply.getString("errmsg").getValue()).contains("recipients' clone");
        BsonDocument operation = operationOf(ns);
        assertThat(operation.getString("state").getValue()).isEqualTo("quiesced");
        assertThat(operation.getDocument("abortReason").getString("codeName").getValue()).isEqualTo("NotImplemented");
        assertThat(operation.containsKey("cloneTimestamp")).as("the donors started: %s", operation).isTrue();
        assertThat(operation.getArray("donorShards")).hasSize(3);
        assertThat(operation.getArray("recipientShards")).hasSize(3);
        // a retry of the same command gets the operation's outcome
        assertThat(code(router.run("admin", reshard(ns, "{\"country\": 1}")))).isEqualTo(341);

        // the collection is as it was, and writable
        assertThat(count("cities")).isEqualTo(DOCUMENTS);
        ItSupport.ok(router, DB, "{\"insert\": \"cities\", \"documents\": [{\"_id\": 100000, \"country\": \"FR\"}]}");
        assertThat(count("cities")).isEqualTo(DOCUMENTS + 1);
        assertThat(ItSupport.ok(router, "config", "{\"find\": \"collections\", \"filter\": {\"_id\": \"" + ns + "\"}}")
                .getDocument("cursor").getArray("firstBatch").get(0).asDocument().getDocument("key").toJson()).isEqualTo("{\"_id\": \"hashed\"}");
        // the hold is released: the drop runs
        ItSupport.ok(router, DB, "{\"drop\": \"cities\"}");
    }

    @Test
    void theCollectionsOwnKeyIsNoChangeAndOptionsNotImplementedAreRefusedByName() {
        String ns = fill("same");
        ItSupport.ok(router, "admin", reshard(ns, "{\"_id\": \"hashed\"}").toJson());
        assertThat(operationOf(ns).containsKey("abortReason")).isFalse();

        BsonDocument unique = router.run("admin", reshard(ns, "{\"country\": 1}").append("unique", org.bson.BsonBoolean.TRUE));
        assertThat(code(unique)).isEqualTo(238);
        assertThat(unique.getString("errmsg").getValue()).contains("unique");
        BsonDocument zones = router.run("admin", reshard(ns, "{\"country\": 1}").append("zones", new BsonArray()));
        assertThat(code(zones)).isEqualTo(238);
        assertThat(zones.getString("errmsg").getValue()).contains("zones");

        // the no-change operation counts as committed while it is quiesced; a collection without one has nothing to abort
        assertThat(code(router.run("admin", new BsonDocument("abortReshardCollection", new BsonString(ns))))).isEqualTo(340);
        assertThat(code(router.run("admin", new BsonDocument("abortReshardCollection", new BsonString(DB + ".never"))))).isEqualTo(339);
    }

    /** Shards {@code rs.<coll>} on a hashed {@code _id} (chunks on every shard) and inserts {@value #DOCUMENTS} documents. */
    private static String fill(String coll) {
        String ns = DB + "." + coll;
        ItSupport.ok(router, "admin", "{\"shardCollection\": \"" + ns + "\", \"key\": {\"_id\": \"hashed\"}}");
        BsonArray docs = new BsonArray();
        for (int i = 0; i < DOCUMENTS; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i)).append("country", new BsonString(COUNTRIES.get(i % COUNTRIES.size()))));
        }
        RouterClient.requireOk("insert", router.run(DB, new BsonDocument("insert", new BsonString(coll)).append("documents", docs)));
        return ns;
    }

    private static BsonDocument reshard(String ns, String key) {
        return new BsonDocument("reshardCollection", new BsonString(ns)).append("key", ExtendedJson.parse(key));
    }

    private static long count(String coll) {
        return ItSupport.ok(router, DB, "{\"count\": \"" + coll + "\"}").getNumber("n").longValue();
    }

    /** The collection's document in the resharding service's {@code /actuator/resharding}. */
    private static BsonDocument operationOf(String ns) {
        for (BsonValue op : ExtendedJson.parse(ItSupport.get(cluster.url("resharding") + "/actuator/resharding")).getArray("operations")) {
            if (op.asDocument().getString("ns").getValue().equals(ns)) {
                return op.asDocument();
            }
        }
        throw new AssertionError("no resharding operation of " + ns);
    }

    private static int code(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as("an error reply: %s", reply).isZero();
        return reply.getNumber("code").intValue();
    }
}
