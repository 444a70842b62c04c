package dev.shardstore.cluster.it;

import static dev.shardstore.cluster.it.MigrationCluster.other;
import static dev.shardstore.cluster.it.ItSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.cluster.router.RouterException;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.infra.PostgresDurability;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Chunk migration under kill -9 (docs/sharding-protocol.md, "Chunk migration", "Recovery") on one local cluster (2 shards,
 * 1 router, ports offset by 3100, test commands on, {@code orphanCleanupDelaySecs} 2 s, PostgreSQL durable). Each case moves the chunk
 * {@code [200, 400)} of its own collection of 600 documents while a writer writes through the router, crashes one process
 * at a protocol step with a crash fail point ({@code Runtime.halt}: what kill -9 at that instruction leaves), restarts it
 * with {@code cluster.startService}, and then checks that
 * <ul>
 *   <li>the migration ended committed or aborted, as the step decides (the config commit is the point of no return), with
 *       nothing of it left on the shards (no running migration, coordinator document or range deletion task);</li>
 *   <li>no acknowledged write is lost or duplicated, and the original documents are all there once;</li>
 *   <li>the routing table agrees with where the documents are: the count through the router equals the owned documents
 *       summed from the shards, and no shard holds orphans any more.</li>
 * </ul>
 * The router case differs: the router is killed (kill -9) while the donor pauses after the clone, and the move must still
 * commit, since only the config service and the shards hold its state. The postgres case kills PostgreSQL itself under the
 * writer, without a migration; the last one kills a spilling aggregate (killOp, then kill -9 of its shard).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MigrationFaultIT {
    private static final String DB = "faultit";
    private static MigrationCluster c;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> c == null ? null : c.cluster);
    private static int cases;

    private enum Crashed { DONOR, RECIPIENT, CONFIG }

    private enum Outcome { COMMITTED, ABORTED }

    @BeforeAll
    static void startCluster() throws Exception {
        // durable PostgreSQL (the suite asks for the fast setting elsewhere): with synchronous_commit off, a killed server
        // loses the commits of its last moments, which postgresKilledUnderARoutedWriteLoad catches
        // clone pages of a few dozen of these small documents: a crash during a clone meets pages written at once (clone-writers)
        c = MigrationCluster.start("migration-fault-it", 3100, 1, List.of("-Dshardstore.shard.migration.clone-batch-bytes=1KB"),
                PostgresDurability.DURABLE);
    }

    @AfterAll
    static void stopCluster() {
        if (c != null) {
            c.close();
        }
    }

    @Test
    @Order(1)
    void donorKilledDuringTheClone() throws Exception {
        crashDuringMove("clone", Crashed.DONOR, "moveChunk.duringClone", Outcome.ABORTED);
    }

    @Test
    @Order(2)
    void donorKilledDuringTheCatchUp() throws Exception {
        crashDuringMove("catchup", Crashed.DONOR, "moveChunk.duringCatchup", Outcome.ABORTED);
    }

    @Test
    @Order(3)
    void donorKilledInsideTheCriticalSection() throws Exception {
        crashDuringMove("section", Crashed.DONOR, "moveChunk.inCriticalSection", Outcome.ABORTED);
    }

    @Test
    @Order(4)
    void donorKilledAfterTheConfigCommitBeforeItRecordsTheDecision() throws Exception {
        crashDuringMove("decision", Crashed.DONOR, "moveChunk.afterConfigCommit", Outcome.COMMITTED);
    }

    @Test
    @Order(5)
    void donorKilledBeforeItsRangeDeletion() throws Exception {
        crashDuringMove("deletion", Crashed.DONOR, "moveChunk.beforeRangeDeletion", Outcome.COMMITTED);
    }

    @Test
    @Order(6)
    void recipientKilledDuringTheClone() throws Exception {
        crashDuringMove("recipient", Crashed.RECIPIENT, "recipient.duringClone", Outcome.ABORTED);
    }

    @Test
    @Order(7)
    void recipientKilledDuringTheCatchUp() throws Exception {
        crashDuringMove("recipientcatchup", Crashed.RECIPIENT, "recipient.duringCatchup", Outcome.ABORTED);
    }

    @Test
    @Order(8)
    void configServiceKilledDuringTheCommit() throws Exception {
        crashDuringMove("config", Crashed.CONFIG, "commitChunkMigration.beforeCommit", Outcome.ABORTED);
    }

    /** The commit is durable but its answer never reaches the donor: the fence and the catalog say committed. */
    @Test
    @Order(9)
    void configServiceKilledAfterTheCommitBeforeItAnswers() throws Exception {
        crashDuringMove("configafter", Crashed.CONFIG, "commitChunkMigration.afterCommit", Outcome.COMMITTED);
    }

    /** The router holds no migration state: killed while its moveChunk waits, the move still commits on its own. */
    @Test
    @Order(10)
    void routerKilledWhileItsMoveRuns() throws Exception {
        String ns = DB + ".router";
        c.shardAndFill(DB, "router", 600, 200, 400);
        String donor = c.ownerOf(ns, 200);
        String recipient = other(donor);
        long entered = c.failPoints.configure(donor, "moveChunk.hangAfterClone", "pause");
        CompletableFuture<BsonDocument> move = moveAsync(ns, recipient);
        c.failPoints.waitFor(donor, "moveChunk.hangAfterClone", entered + 1);
        c.cluster.killService("router1");
        System.out.println("[router] moveChunk answered " + move.get(60, TimeUnit.SECONDS).toJson());
        c.failPoints.disable(donor, "moveChunk.hangAfterClone");
        c.cluster.startService("router1");
        waitUntil(() -> c.settled(ns) && c.ownerOf(ns, 200).equals(recipient), Duration.ofSeconds(120), "router: the move committed");

        assertThat(AcknowledgedWriter.findAll(c.router, DB, "router", ExtendedJson.parse("{}"))).as("router: every document once").hasSize(600);
        for (String shard : MigrationCluster.SHARDS) {
            assertThat(c.distribution(shard, ns).getNumber("numOrphanedDocs").longValue()).as("router: orphans on %s", shard).isZero();
        }
        assertThat(c.ownedOnShards(ns)).isEqualTo(600);
    }

    /**
     * PostgreSQL itself killed (kill -9 of the server, not of a service) under a routed write load, then restarted: the
     * services reconnect, writes are acknowledged again, and every acknowledged write is readable exactly once with its
     * last acknowledged value, none of the writer's documents twice (issue 40). A killed server process loses nothing
     * its commits handed to the operating system, whatever the durability setting; a crash of the machine is what
     * fsync guards against (PostgresDurabilityTest reads the settings the cluster starts with).
     */
    @Test
    @Order(11)
    void postgresKilledUnderARoutedWriteLoad() throws Exception {
        String coll = "postgres";
        c.shardAndFill(DB, coll, 600, 200, 400);
        AcknowledgedWriter writer = new AcknowledgedWriter(c.router, DB, coll, coll, 1_000_000 * ++cases, 600, cases);
        try (writer) {
            waitUntil(() -> writer.statements() > 10, Duration.ofSeconds(60), "postgres: writes before the kill");
            c.cluster.killService("postgres");
            long failed = writer.failures();
            waitUntil(() -> writer.failures() > failed, Duration.ofSeconds(120), "postgres: writes fail while PostgreSQL is down");
            c.cluster.startService("postgres");
            long acknowledged = writer.statements() - writer.failures();
            waitUntil(() -> writer.statements() - writer.failures() > acknowledged + 10, Duration.ofSeconds(120),
                    "postgres: writes acknowledged again after the restart");
        }
        int written = writer.verify(c.router);
        assertThat(AcknowledgedWriter.findAll(c.router, DB, coll, ExtendedJson.parse("{\"_id\": {\"$lt\": 600}}")))
                .as("postgres: the original documents, once each").hasSize(600);
        assertThat(c.count(DB, coll)).as("postgres: the originals and the writer's documents").isEqualTo(600 + written);
        System.out.printf("[postgres] %d statements, %d not acknowledged, %d of the writer's documents there%n", writer.statements(),
                writer.failures(), written);
    }

    /**
     * {@code killOp} through the router of a spilling aggregate (a sort budget of 16 KB, set through the router) that the
     * fail point {@code spill.beforeMerge} holds with its runs on the shard's disk: the router's {@code $currentOp} lists
     * it as {@code "<shard>:<opid>"}, the kill ends it with Interrupted (11601) and its runs are deleted. Then the same
     * aggregate held again and its shard killed (kill -9) with the runs on disk: the restarted shard's spill directory is
     * empty (the shard empties it when it starts) and the aggregate returns every document in order.
     */
    @Test
    @Order(12)
    void aSpillingAggregateKilledByKillOpOrWithItsShardLeavesNoSpillFile() throws Exception {
        String coll = "spill";
        String ns = DB + "." + coll;
        int documents = 3000;
        c.shardAndFill(DB, coll, documents, documents / 2);
        String owner = c.ownerOf(ns, documents / 2); // every chunk is on the primary shard
        java.nio.file.Path spill = c.cluster.home().dir().resolve("spill").resolve(owner);
        String sortMemory = "internalQueryMaxBlockingSortMemoryUsageBytes";
        org.bson.BsonValue before = c.ok("admin", "{\"getParameter\": 1, \"" + sortMemory + "\": 1}").get(sortMemory);
        c.ok("admin", "{\"setParameter\": 1, \"" + sortMemory + "\": 16384}");
        String aggregate = "{\"aggregate\": \"" + coll + "\", \"pipeline\": [{\"$sort\": {\"x\": -1}}], \"cursor\": {\"batchSize\": 5000},"
                + " \"comment\": \"spill-it\"}";
        try {
            long entered = c.failPoints.configure(owner, "spill.beforeMerge", "pause");
            CompletableFuture<BsonDocument> held = CompletableFuture.supplyAsync(() -> c.router.run(DB, ExtendedJson.parse(aggregate)), Thread.ofVirtual()::start);
            c.failPoints.waitFor(owner, "spill.beforeMerge", entered + 1);
            assertThat(spillFiles(spill)).as("spill: the held sort's runs").isNotEmpty();
            List<BsonDocument> listed = c.ok("admin", "{\"aggregate\": 1, \"pipeline\": [{\"$currentOp\": {\"allUsers\": true}},"
                    + " {\"$match\": {\"shard\": \"" + owner + "\", \"command.comment\": \"spill-it\"}}], \"cursor\": {}}")
                    .getDocument("cursor").getArray("firstBatch").stream().map(v -> v.asDocument()).toList();
            assertThat(listed).as("spill: the router lists the held aggregate on its shard").hasSize(1);
            String opid = listed.getFirst().getString("opid").getValue();
            assertThat(opid).startsWith(owner + ":");
            assertThat(c.ok("admin", "{\"killOp\": 1, \"op\": \"" + opid + "\"}").getString("info").getValue()).isEqualTo("attempting to kill op");
            BsonDocument killed = held.get(60, TimeUnit.SECONDS);
            assertThat(killed.getNumber("code").intValue()).as(killed.toJson()).isEqualTo(11601);
            assertThat(spillFiles(spill)).as("spill: the killed sort deleted its runs").isEmpty();

            entered = c.failPoints.configure(owner, "spill.beforeMerge", "pause");
            CompletableFuture<BsonDocument> orphaned = CompletableFuture.supplyAsync(() -> {
                try {
                    return c.router.run(DB, ExtendedJson.parse(aggregate));
                } catch (RouterException e) {
                    return new BsonDocument("ok", new org.bson.BsonDouble(0)).append("errmsg", new BsonString(e.getMessage()));
                }
            }, Thread.ofVirtual()::start);
            c.failPoints.waitFor(owner, "spill.beforeMerge", entered + 1);
            assertThat(spillFiles(spill)).as("spill: runs on disk when the shard is killed").isNotEmpty();
            c.cluster.killService(owner);
            System.out.println("[spill] the aggregate of the killed shard answered " + orphaned.get(120, TimeUnit.SECONDS).toJson());
            assertThat(spillFiles(spill)).as("spill: a killed process cannot delete its runs").isNotEmpty();
            c.cluster.startService(owner);
            assertThat(spillFiles(spill)).as("spill: the restarted shard emptied its directory").isEmpty();
            List<BsonDocument> sorted = new java.util.ArrayList<>();
            waitUntil(() -> {
                BsonDocument reply = c.router.run(DB, ExtendedJson.parse(aggregate));
                if (!RouterClient.isOk(reply)) {
                    return false;
                }
                sorted.clear();
                BsonDocument cursor = reply.getDocument("cursor");
                cursor.getArray("firstBatch").forEach(v -> sorted.add(v.asDocument()));
                while (cursor.getNumber("id").longValue() != 0) {
                    cursor = RouterClient.requireOk("getMore", c.router.run(DB, new BsonDocument("getMore",
                            new org.bson.BsonInt64(cursor.getNumber("id").longValue())).append("collection", new BsonString(coll))))
                            .getDocument("cursor");
                    cursor.getArray("nextBatch").forEach(v -> sorted.add(v.asDocument()));
                }
                return true;
            }, Duration.ofSeconds(120), "spill: the aggregate answers again after the restart");
            assertThat(sorted).as("spill: every document, in order").hasSize(documents);
            for (int i = 0; i < documents; i++) {
                assertThat(sorted.get(i).getNumber("x").intValue()).isEqualTo(documents - 1 - i);
            }
            assertThat(spillFiles(spill)).isEmpty();
        } finally {
            c.ok("admin", new BsonDocument("setParameter", new org.bson.BsonInt32(1)).append(sortMemory, before).toJson());
        }
    }

    /** The spill files in {@code directory} now. */
    private static List<java.nio.file.Path> spillFiles(java.nio.file.Path directory) throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(directory)) {
            return files.toList();
        }
    }

    /**
     * Moves {@code [200, 400)} of {@code faultit.<coll>} while a writer runs, with {@code failPoint} armed to crash
     * {@code crashed}; restarts it and checks the outcome and the data (see the class comment).
     */
    private void crashDuringMove(String coll, Crashed crashed, String failPoint, Outcome expected) throws Exception {
        String ns = DB + "." + coll;
        c.shardAndFill(DB, coll, 600, 200, 400);
        String donor = c.ownerOf(ns, 200);
        String recipient = other(donor);
        String victim = switch (crashed) {
            case DONOR -> donor;
            case RECIPIENT -> recipient;
            case CONFIG -> "config";
        };
        int idBase = 1_000_000 * ++cases;
        AcknowledgedWriter writer = new AcknowledgedWriter(c.router, DB, coll, coll, idBase, 600, cases);
        try (writer) {
            waitUntil(() -> writer.statements() > 10, Duration.ofSeconds(60), coll + ": writes before the move");
            c.failPoints.configure(victim, failPoint, "crash");
            CompletableFuture<BsonDocument> move = moveAsync(ns, recipient);
            waitUntil(() -> !c.running(victim), Duration.ofSeconds(120), coll + ": " + victim + " crashed at " + failPoint);
            c.cluster.startService(victim);
            BsonDocument reply = move.get(180, TimeUnit.SECONDS);
            System.out.println("[" + coll + "] moveChunk answered " + reply.toJson());
            waitUntil(() -> c.settled(ns), Duration.ofSeconds(120), coll + ": the migration is over on both shards");
            long after = writer.statements();
            waitUntil(() -> writer.statements() > after + 10, Duration.ofSeconds(60), coll + ": writes after the recovery");
        }

        assertThat(c.ownerOf(ns, 200)).as("%s: the migration ended %s", coll, expected)
                .isEqualTo(expected == Outcome.COMMITTED ? recipient : donor);
        int written = writer.verify(c.router);
        assertThat(AcknowledgedWriter.findAll(c.router, DB, coll, ExtendedJson.parse("{\"_id\": {\"$lt\": 600}}")))
                .as("%s: the original documents, once each", coll).hasSize(600);
        RouterClient.requireOk("cleanupOrphaned", c.router.run("admin", new BsonDocument("cleanupOrphaned", new BsonString(ns))));
        for (String shard : MigrationCluster.SHARDS) {
            assertThat(c.distribution(shard, ns).getNumber("numOrphanedDocs").longValue()).as("%s: orphans on %s", coll, shard).isZero();
        }
        long routed = c.count(DB, coll);
        assertThat(routed).as("%s: the count through the router is what the shards own", coll).isEqualTo(c.ownedOnShards(ns));
        assertThat(routed).as("%s: the originals and this writer's documents", coll).isEqualTo(600 + written);
    }

    /** {@code moveChunk} of {@code [200, 400)} in the background; its reply, or the client's error as {@code {ok: 0, errmsg}}. */
    private static CompletableFuture<BsonDocument> moveAsync(String ns, String recipient) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return c.moveChunk(ns, 200, recipient);
            } catch (RouterException e) {
                return new BsonDocument("ok", new org.bson.BsonDouble(0)).append("errmsg", new BsonString(e.getMessage()));
            }
        }, Thread.ofVirtual()::start);
    }
}
