package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.UuidRepresentation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * reshardCollection through the router on real processes (the shared cluster's 2 shards; docs/architecture.md
 * "Resharding"): a collection resharded from a hashed {@code _id} to {@code {country: 1}} while a writer inserts,
 * updates (moving documents between the new chunks) and deletes through the router commits with every acknowledged
 * write in place, queries on the new key hit one shard, and no shard keeps a copy of the old layout; the verification
 * finds a planted difference on a recipient and aborts, leaving the old collection as it was, the temporary one gone.
 * A write block longer than {@code reshardingCriticalSectionTimeoutMillis} aborts with its code (342). The collection's
 * own key is no change; options not implemented are refused naming them; abortReshardCollection after a commit is
 * ReshardCollectionCommitted (340), with no operation NoSuchReshardCollection (339).
 */
@OnSharedCluster
class ReshardingIT {
    private static final String DB = "rs";
    private static final List<String> COUNTRIES = List.of("FR", "DE", "JP", "BR", "NZ");
    private static final int DOCUMENTS = 300;

    private static LocalCluster cluster;
    private static RouterClient router;

    @BeforeAll
    static void onTheSharedCluster(MigrationCluster shared) {
        cluster = shared.cluster;
        router = shared.router;
    }

    @Test
    void aNewKeyUnderAWriterCommitsWithEveryAcknowledgedWriteAndTargetsTheNewKey() throws Exception {
        String ns = fill("cities");
        Map<Integer, String> expected = new ConcurrentHashMap<>();
        for (int i = 0; i < DOCUMENTS; i++) {
            expected.put(i, COUNTRIES.get(i % COUNTRIES.size()));
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong acknowledged = new AtomicLong();
        Thread writer = Thread.ofVirtual().start(() -> {
            for (int i = 0; !stop.get(); i++) {
                // an insert, an update that moves a document to another country (another new chunk), a delete
                int inserted = 10_000 + i;
                String country = COUNTRIES.get(i % COUNTRIES.size());
                if (written(router.run(DB, ExtendedJson.parse("{\"insert\": \"cities\", \"documents\": [{\"_id\": " + inserted
                        + ", \"country\": \"" + country + "\"}]}")))) {
                    expected.put(inserted, country);
                }
                int moved = i % (DOCUMENTS / 2);
                String to = COUNTRIES.get((i + 2) % COUNTRIES.size());
                if (written(router.run(DB, ExtendedJson.parse("{\"update\": \"cities\", \"updates\": [{\"q\": {\"_id\": " + moved
                        + "}, \"u\": {\"$set\": {\"country\": \"" + to + "\", \"v\": " + i + "}}}]}"))) && expected.containsKey(moved)) {
                    expected.put(moved, to);
                }
                int deleted = DOCUMENTS - 1 - i;
                if (deleted >= DOCUMENTS / 2 && written(router.run(DB, ExtendedJson.parse("{\"delete\": \"cities\", \"deletes\": [{\"q\": {\"_id\": "
                        + deleted + "}, \"limit\": 1}]}")))) {
                    expected.remove(deleted);
                }
                acknowledged.incrementAndGet();
            }
        });
        ItSupport.waitUntil(() -> acknowledged.get() >= 5, Duration.ofSeconds(60), "the writer's first writes");

        BsonDocument reply = router.run("admin", reshard(ns, "{\"country\": 1}"));
        ItSupport.waitUntil(() -> acknowledged.get() >= 10, Duration.ofSeconds(60), "writes after the commit");
        stop.set(true);
        writer.join();

        assertThat(reply.getNumber("ok").intValue()).as("%s", reply).isEqualTo(1);
        BsonDocument operation = operationOf(ns);
        assertThat(operation.containsKey("abortReason")).as("%s", operation).isFalse();
        assertThat(operation.getArray("newChunks")).as("one per recipient").hasSize(MigrationCluster.SHARDS.size());
        Map<String, Long> byCountry = new TreeMap<>();
        expected.values().forEach(c -> byCountry.merge(c, 1L, Long::sum));
        assertThat(ItSupport.countsByCountry(router, DB, "cities")).as("every acknowledged write, none lost or doubled").isEqualTo(byCountry);
        assertThat(count("cities")).isEqualTo(expected.size());
        BsonDocument entry = ItSupport.firstBatch(router, "collections", BsonDocument.parse("{_id: '" + ns + "'}")).getFirst();
        assertThat(entry.getDocument("key").toJson()).isEqualTo("{\"country\": 1}");
        assertThat(uuid(entry.get("uuid"))).as("the temporary collection's uuid: %s", entry).isEqualTo(operationId(operation));

        BsonDocument explain = ItSupport.ok(router, DB, "{\"explain\": {\"find\": \"cities\", \"filter\": {\"country\": \"FR\"}}}");
        assertThat(explain.getDocument("queryPlanner").getDocument("winningPlan").getArray("shards")).as("%s", explain).hasSize(1);
        // the donors dropped the old layout: what the shards store is exactly the collection, each document once
        long stored = 0;
        for (String shard : MigrationCluster.SHARDS) {
            stored += ItSupport.storedOn(cluster, shard, DB, "cities").size();
            assertThat(ItSupport.storedOn(cluster, shard, DB, "system.resharding." + operationId(operation))).isEmpty();
        }
        assertThat(stored).isEqualTo(expected.size());
        // writes go on under the new key
        ItSupport.ok(router, DB, "{\"insert\": \"cities\", \"documents\": [{\"_id\": 900000, \"country\": \"NZ\"}]}");
        assertThat(count("cities")).isEqualTo(expected.size() + 1L);
    }

    @Test
    void theVerificationFindsAPlantedDifferenceAndAbortsLeavingTheOldCollection() {
        String ns = fill("planted");
        for (String shard : MigrationCluster.SHARDS) {
            ItSupport.onService(cluster, shard, "admin", new BsonDocument("configureFailPoint", new BsonString("reshardingRecipient.corruptOneDocument"))
                    .append("mode", new BsonDocument("times", new BsonInt32(1)))
                    .append("data", new BsonDocument("action", new BsonString("error")).append("errorCode", new BsonInt32(8))));
        }

        BsonDocument reply = router.run("admin", reshard(ns, "{\"country\": 1}"));

        assertThat(code(reply)).as("%s", reply).isEqualTo(341);
        assertThat(reply.getString("errmsg").getValue()).contains("verification").contains("new chunk");
        BsonDocument operation = operationOf(ns);
        assertThat(operation.getString("state").getValue()).isEqualTo("quiesced");
        assertThat(count("planted")).isEqualTo(DOCUMENTS);
        assertThat(ItSupport.firstBatch(router, "collections", BsonDocument.parse("{_id: '" + ns + "'}")).getFirst()
                .getDocument("key").toJson()).isEqualTo("{\"_id\": \"hashed\"}");
        for (String shard : MigrationCluster.SHARDS) {
            assertThat(ItSupport.storedOn(cluster, shard, DB, "system.resharding." + operationId(operation))).as("the temporary collection is gone").isEmpty();
        }
        // released and writable
        ItSupport.ok(router, DB, "{\"insert\": \"planted\", \"documents\": [{\"_id\": 100000, \"country\": \"FR\"}]}");
        assertThat(count("planted")).isEqualTo(DOCUMENTS + 1);
        ItSupport.ok(router, DB, "{\"drop\": \"planted\"}");
        for (String shard : MigrationCluster.SHARDS) { // a shared cluster is left without fail points: a recipient that did not corrupt still has its one time
            ItSupport.onService(cluster, shard, "admin", new BsonDocument("configureFailPoint", new BsonString("reshardingRecipient.corruptOneDocument"))
                    .append("mode", new BsonString("off")));
        }
    }

    /**
     * reshardingCriticalSectionTimeoutMillis, set through the router (which sends it to the coordinator): at 0 ms the
     * recipients cannot have caught up once writes are blocked, so the operation aborts with
     * ReshardingCriticalSectionTimeout (342), as MongoDB's reshardCollection answers, and the collection stays as it was.
     */
    @Test
    void aWriteBlockLongerThanReshardingCriticalSectionTimeoutMillisAbortsWithItsCode() {
        String ns = fill("blocked");
        ItSupport.ok(router, "admin", "{\"setParameter\": 1, \"reshardingCriticalSectionTimeoutMillis\": 0}");
        BsonDocument reply;
        try {
            reply = router.run("admin", reshard(ns, "{\"country\": 1}"));
        } finally {
            ItSupport.ok(router, "admin", "{\"setParameter\": 1, \"reshardingCriticalSectionTimeoutMillis\": 5000}");
        }
        assertThat(code(reply)).as("%s", reply).isEqualTo(342);
        assertThat(reply.getString("errmsg").getValue()).contains("reshardingCriticalSectionTimeoutMillis");
        assertThat(operationOf(ns).getDocument("abortReason").getString("codeName").getValue()).isEqualTo("ReshardingCriticalSectionTimeout");
        assertThat(ItSupport.firstBatch(router, "collections", BsonDocument.parse("{_id: '" + ns + "'}")).getFirst()
                .getDocument("key").toJson()).isEqualTo("{\"_id\": \"hashed\"}");
        ItSupport.ok(router, DB, "{\"insert\": \"blocked\", \"documents\": [{\"_id\": 100000, \"country\": \"FR\"}]}");
        assertThat(count("blocked")).isEqualTo(DOCUMENTS + 1);
    }

    /** Whether a write's reply acknowledges it: ok, no write error, one document written. */
    private static boolean written(BsonDocument reply) {
        return reply.getNumber("ok").intValue() == 1 && !reply.containsKey("writeErrors") && reply.getNumber("n").intValue() == 1;
    }

    /** The operation's {@code _id}. */
    private static UUID operationId(BsonDocument operation) {
        return uuid(operation.get("_id"));
    }

    /** A UUID as a reply renders it: binary subtype 4, or its string where JSON carries it ({@code /actuator/resharding}). */
    private static UUID uuid(BsonValue value) {
        return value.isString() ? UUID.fromString(value.asString().getValue()) : value.asBinary().asUuid(UuidRepresentation.STANDARD);
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
