package dev.shardstore.cluster.it;

import static dev.shardstore.cluster.it.ItSupport.waitUntil;
import static dev.shardstore.cluster.it.MigrationCluster.other;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.cluster.router.RouterException;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * reshardCollection under kill -9 (docs/architecture.md "Resharding") on the shared cluster's 2 shards: a collection
 * sharded on {@code {x: 1}} with a chunk on each shard (both donate, both receive) is resharded to {@code {_id: 1}} while
 * a writer ({@link AcknowledgedWriter}) inserts, updates and deletes through the router, and one process crashes at a
 * step with a crash fail point ({@code Runtime.halt}, what kill -9 there leaves) and is started again:
 * <ul>
 *   <li>the coordinator (the resharding service) once it stored the operation (initializing), and after it persisted
 *       preparing-to-donate (its donors, recipients and new chunks fixed), cloning, blocking-writes, and the commit
 *       decision: restarted, it resumes the operation from its state document;</li>
 *   <li>a recipient after it committed a clone page, and a donor as a recipient asks it for an oplog batch: the
 *       coordinator waits for the restarted shard and the recipients resume from their persisted positions.</li>
 * </ul>
 * Each case must end committed, and then every acknowledged write is readable exactly once with its last value, the
 * originals are all there once, the count through the router is what the shards store (no copy of the old layout, no
 * temporary collection), and an identical reshardCollection sent again answers with the outcome.
 */
@OnSharedCluster
class ReshardingFaultIT {
    private static final String DB = "rsfault";
    private static final int DOCUMENTS = 600;
    private static MigrationCluster c;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> c == null ? null : c.cluster);
    private static int cases;

    private enum Victim { COORDINATOR, RECIPIENT, DONOR }

    @BeforeAll
    static void onTheSharedCluster(MigrationCluster shared) {
        c = shared;
    }

    /**
     * One case: the collection {@code coll} resharded while {@code victim} crashes at {@code failPoint} (the
     * coordinator once a state is persisted, {@code reshardCollection.entered.<state>}; a recipient after a clone page;
     * a donor as it serves an oplog batch).
     */
    @ParameterizedTest(name = "{1} killed at {2}")
    @CsvSource({
        "initializing, COORDINATOR, reshardCollection.entered.initializing",
        "preparing,    COORDINATOR, reshardCollection.entered.preparing-to-donate",
        "cloning,      COORDINATOR, reshardCollection.entered.cloning",
        "blocking,     COORDINATOR, reshardCollection.entered.blocking-writes",
        "decided,      COORDINATOR, reshardCollection.entered.committing",
        "recipient,    RECIPIENT,   reshardingRecipient.afterClonePage",
        "donor,        DONOR,       reshardingDonor.beforeOplogBatch",
    })
    void crashDuringReshard(String coll, Victim victim, String failPoint) throws Exception {
        String ns = DB + "." + coll;
        c.shardAndFill(DB, coll, DOCUMENTS, DOCUMENTS / 2);
        String first = c.ownerOf(ns, DOCUMENTS / 2);
        RouterClient.requireOk("moveChunk", c.moveChunk(ns, DOCUMENTS / 2, other(first)));
        String service = switch (victim) {
            case COORDINATOR -> "resharding";
            case RECIPIENT, DONOR -> MigrationCluster.SHARDS.get(cases % 2);
        };
        AcknowledgedWriter writer = new AcknowledgedWriter(c.router, DB, coll, coll, 1_000_000 * ++cases, DOCUMENTS, cases);
        BsonDocument command = new BsonDocument("reshardCollection", new BsonString(ns)).append("key", ExtendedJson.parse("{\"_id\": 1}"));
        try (writer) {
            waitUntil(() -> writer.statements() > 10, Duration.ofSeconds(60), coll + ": writes before the resharding");
            c.failPoints.configure(service, failPoint, "crash");
            CompletableFuture<BsonDocument> reshard = runAsync(command);
            waitUntil(() -> !c.running(service), Duration.ofSeconds(120), coll + ": " + service + " crashed at " + failPoint);
            c.cluster.startService(service);
            BsonDocument reply = reshard.get(300, TimeUnit.SECONDS);
            System.out.println("[" + coll + "] reshardCollection answered " + reply.toJson());
            if (reply.getNumber("ok").intValue() != 1) {
                // the router lost its call with the coordinator: the same command joins the resumed operation or gets its outcome
                reply = runAsync(command).get(300, TimeUnit.SECONDS);
            }
            assertThat(reply.getNumber("ok").intValue()).as("%s: %s", coll, reply).isEqualTo(1);
            long after = writer.statements();
            waitUntil(() -> writer.statements() > after + 10, Duration.ofSeconds(60), coll + ": writes after the resharding");
        }

        BsonDocument operation = operationOf(ns);
        assertThat(operation.getString("state").getValue()).as("%s", operation).isIn("quiesced", "done");
        assertThat(operation.containsKey("abortReason")).as("%s: committed, not aborted: %s", coll, operation).isFalse();
        assertThat(ItSupport.firstBatch(c.router, "collections", BsonDocument.parse("{_id: '" + ns + "'}")).getFirst()
                .getDocument("key").toJson()).isEqualTo("{\"_id\": 1}");
        int written = writer.verify(c.router);
        assertThat(AcknowledgedWriter.findAll(c.router, DB, coll, ExtendedJson.parse("{\"_id\": {\"$lt\": " + DOCUMENTS + "}}")))
                .as("%s: the original documents, once each", coll).hasSize(DOCUMENTS);
        long routed = c.count(DB, coll);
        assertThat(routed).as("%s: the originals and this writer's documents", coll).isEqualTo(DOCUMENTS + written);
        long stored = 0;
        String temporary = "system.resharding." + operation.get("_id").asString().getValue();
        for (String shard : MigrationCluster.SHARDS) {
            stored += ItSupport.storedOn(c.cluster, shard, DB, coll).size();
            assertThat(ItSupport.storedOn(c.cluster, shard, DB, temporary)).as("%s: no temporary collection on %s", coll, shard).isEmpty();
        }
        assertThat(stored).as("%s: the shards store each document once, none of the old layout", coll).isEqualTo(routed);
        c.ok(DB, "{\"drop\": \"" + coll + "\"}");
    }

    /** reshardCollection in the background; its reply, or the client's error as {@code {ok: 0, errmsg}}. */
    private static CompletableFuture<BsonDocument> runAsync(BsonDocument command) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return c.router.run("admin", command);
            } catch (RouterException e) {
                return new BsonDocument("ok", new BsonDouble(0)).append("errmsg", new BsonString(e.getMessage()));
            }
        }, Thread.ofVirtual()::start);
    }

    /** The collection's latest document in the resharding service's {@code /actuator/resharding}. */
    private static BsonDocument operationOf(String ns) {
        BsonDocument found = null;
        for (BsonValue op : ExtendedJson.parse(ItSupport.get(c.cluster.url("resharding") + "/actuator/resharding")).getArray("operations")) {
            if (op.asDocument().getString("ns").getValue().equals(ns)) {
                found = op.asDocument();
            }
        }
        if (found == null) {
            throw new AssertionError("no resharding operation of " + ns);
        }
        return found;
    }
}
