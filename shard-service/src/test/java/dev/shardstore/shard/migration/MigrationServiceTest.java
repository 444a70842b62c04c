package dev.shardstore.shard.migration;

import static dev.shardstore.shard.TestRouting.chunk;
import static dev.shardstore.shard.TestRouting.collection;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.OtherShard;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.OplogReader;
import dev.shardstore.shard.write.BucketCatalog;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.support.failpoint.FailPointAction;
import dev.shardstore.support.failpoint.FailPoints;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Chunk migration between two real shard services (this test's shard, {@code shard-it}, donates; an {@link OtherShard},
 * {@code shard-it-2}, receives), each on its own embedded PostgreSQL database, with {@link ConfigServerStub} as the config
 * service (its migration commit applies the config service's version rules). Writes go straight to the donor, unversioned,
 * while fail points hold the migration in the clone or catch-up (docs/sharding-protocol.md, "Chunk migration").
 *
 * <p>Each test uses its own namespace {@code mig.<name>}, sharded on {@code {x: 1}} with the chunks
 * {@code [MinKey, 50) [50, 100) [100, MaxKey)} on the donor; documents are {@code {_id: i, x: i}}.
 */
class MigrationServiceTest extends ShardIntegrationTest {
    private static final String RECIPIENT = "shard-it-2";
    private static OtherShard recipient;

    @Autowired
    FailPoints failPoints;

    @Autowired
    dev.shardstore.shard.versioning.CollectionShardingRuntime runtime;

    @Autowired
    OplogReader oplog;

    @Autowired
    RangeDeletionStore donorTasks;

    @Autowired
    MigrationCoordinatorStore donorCoordinators;

    @Autowired
    RangeDeleter donorRangeDeleter;

    @Autowired
    CollectionCatalog collectionCatalog;

    @Autowired
    BucketCatalog bucketCatalog;

    @Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(60));

    @BeforeAll
    static void startRecipient() {
        recipient = OtherShard.start(RECIPIENT, "shard_it_recipient");
        ConfigServerStub.instance().registerShard(RECIPIENT, recipient.url());
    }

    @AfterAll
    static void stopRecipient() {
        recipient.close();
    }

    @org.junit.jupiter.api.BeforeEach
    void registerDonor() {
        ConfigServerStub.instance().registerShard(SHARD_NAME, url());
    }

    @AfterEach
    void disarm() {
        for (String point : List.of(MigrationDestinationManager.DURING_CLONE, MigrationDestinationManager.DURING_CATCHUP,
                MigrationDestinationManager.BATCH_WRITTEN, RangeDeleter.BEFORE_RANGE_DELETION)) {
            recipient.bean(FailPoints.class).configure(point, null, 0);
        }
        for (String point : List.of(MigrationSourceManager.HANG_AFTER_CLONE, WriteUnitOfWork.BEFORE_COMMIT, RangeDeleter.BEFORE_RANGE_DELETION,
                MigrationSourceManager.BEFORE_STEADY_CHECK)) {
            failPoints.configure(point, null, 0);
        }
        ConfigServerStub.instance().overrideMigrationCommit(null);
    }

    @Test
    void cloneAndCatchUpApplyTheWritesMadeMeanwhileIncludingUpdatesThatMoveADocumentOutOfTheRange() throws Exception {
        String ns = setUp("writes", 150);
        FailPoints recipientPoints = recipient.bean(FailPoints.class);
        long cloned = recipientPoints.configure(MigrationDestinationManager.DURING_CLONE, FailPointAction.pause(), 1);
        CompletableFuture<BsonDocument> move = moveAsync(ns, 50);
        assertThat(recipientPoints.awaitEntered(MigrationDestinationManager.DURING_CLONE, cloned + 1, Duration.ofSeconds(30))).isTrue();

        // during the clone (the first batch is applied, the rest not yet)
        write("{insert: 'writes', documents: [{_id: 1000, x: 60}, {_id: 1001, x: 99}, {_id: 1002, x: 200}]}");
        write("{update: 'writes', updates: [{q: {_id: 55}, u: {$set: {y: 'during clone'}}}]}");
        write("{update: 'writes', updates: [{q: {_id: 70}, u: {$set: {x: 120}}}]}"); // leaves the range
        write("{update: 'writes', updates: [{q: {_id: 130}, u: {$set: {x: 75}}}]}"); // enters the range
        write("{delete: 'writes', deletes: [{q: {_id: 80}, limit: 1}, {q: {_id: 140}, limit: 1}]}");
        long caughtUp = recipientPoints.configure(MigrationDestinationManager.DURING_CATCHUP, FailPointAction.pause(), 1);
        recipientPoints.configure(MigrationDestinationManager.DURING_CLONE, null, 0);
        assertThat(recipientPoints.awaitEntered(MigrationDestinationManager.DURING_CATCHUP, caughtUp + 1, Duration.ofSeconds(30))).isTrue();

        // during the catch-up (a batch of changes is applied, the next not pulled yet)
        write("{insert: 'writes', documents: [{_id: 1003, x: 51}]}");
        write("{update: 'writes', updates: [{q: {_id: 1000}, u: {$set: {y: 'during catch-up'}}}]}");
        write("{update: 'writes', updates: [{q: {_id: 75}, u: {$set: {x: 10}}}]}"); // leaves the range
        write("{update: 'writes', updates: [{q: {_id: 130}, u: {$set: {x: 130}}}]}"); // entered during the clone, leaves again
        write("{delete: 'writes', deletes: [{q: {_id: 1001}, limit: 1}]}");
        Map<Integer, BsonDocument> expected = inRange(documents(url(), "writes"), 50, 100);
        Map<Integer, BsonDocument> staying = outside(documents(url(), "writes"), 50, 100);
        recipientPoints.configure(MigrationDestinationManager.DURING_CATCHUP, null, 0);

        BsonDocument reply = move.get(60, TimeUnit.SECONDS);
        assertThat(ErrorReplies.isError(reply)).as(reply.toJson()).isFalse();
        assertThat(reply.getNumber("documentsCloned").longValue()).isPositive();
        assertThat(reply.getNumber("modsTransferred").longValue()).isPositive();

        List<BsonDocument> received = documents(recipient.url(), "writes");
        assertThat(byId(received)).as("the recipient holds exactly the range as it is on the donor").isEqualTo(expected);
        assertThat(expected).containsKeys(55, 1000, 1003).doesNotContainKeys(70, 75, 80, 130, 1001, 1002);
        assertThat(expected.get(1000).getString("y").getValue()).isEqualTo("during catch-up");
        assertThat(ConfigServerStub.instance().chunks(ns)).filteredOn(c -> c.shard().equals(RECIPIENT))
                .extracting(c -> c.range().min().getInt32("x").getValue()).containsExactly(50);
        assertThat(donorCoordinators.list()).as("the coordinator document is gone").isEmpty();
        assertThat(recipient.bean(RangeDeletionStore.class).list()).as("the recipient's task is deleted").isEmpty();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(inRange(documents(url(), "writes"), 50, 100)).as("the donor's orphans are deleted").isEmpty());
        assertThat(donorTasks.list()).isEmpty();
        assertThat(byId(documents(url(), "writes"))).as("documents outside the range stay on the donor").isEqualTo(staying);
        assertThat(staying).containsKeys(70, 75, 130, 1002).doesNotContainKey(140);
    }

    /**
     * A shard key of MaxKey belongs to the last chunk ({@code RoutingTable.findChunk}; MongoDB accepts such documents), so
     * moving that chunk moves it: one written before the move goes with the clone, one written during the clone with the
     * catch-up, and both leave the donor with its range deletion.
     */
    @Test
    void movingTheLastChunkMovesTheDocumentsWhoseShardKeyIsMaxKey() throws Exception {
        String ns = setUp("maxkey", 150);
        write("{insert: 'maxkey', documents: [{_id: 5000, x: {$maxKey: 1}}]}");
        FailPoints recipientPoints = recipient.bean(FailPoints.class);
        long cloned = recipientPoints.configure(MigrationDestinationManager.DURING_CLONE, FailPointAction.pause(), 1);
        CompletableFuture<BsonDocument> move = moveAsync(ns, 100);
        assertThat(recipientPoints.awaitEntered(MigrationDestinationManager.DURING_CLONE, cloned + 1, Duration.ofSeconds(30))).isTrue();
        write("{insert: 'maxkey', documents: [{_id: 5001, x: {$maxKey: 1}}]}");
        recipientPoints.configure(MigrationDestinationManager.DURING_CLONE, null, 0);

        BsonDocument reply = move.get(60, TimeUnit.SECONDS);
        assertThat(ErrorReplies.isError(reply)).as(reply.toJson()).isFalse();
        assertThat(ids(documents(recipient.url(), "maxkey"))).as("the recipient holds the chunk, MaxKey keys included")
                .contains(100, 149, 5000, 5001).hasSize(52);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(ids(documents(url(), "maxkey")))
                .as("the donor's orphans are deleted, MaxKey keys included").hasSize(100).doesNotContain(100, 5000, 5001));
    }

    /** {@code json} as a statement of {@code lsid}'s transaction 1 ({@code startTransaction} when {@code start}). */
    private static BsonDocument inTransaction(String json, dev.shardstore.contracts.session.LogicalSessionId lsid, boolean start) {
        BsonDocument command = ExtendedJson.parse(json).append("lsid", lsid.toBson()).append("txnNumber", new org.bson.BsonInt64(1))
                .append("autocommit", org.bson.BsonBoolean.FALSE);
        return start ? command.append("startTransaction", org.bson.BsonBoolean.TRUE) : command;
    }

    /**
     * A migration of a range in which one transaction is prepared and another is open with a write (issue 36;
     * mongo/src/mongo/db/s/README.md "Transactions"): the donor's critical section waits for the prepared one's
     * decision, whose entry then reaches the recipient with the last catch-up, so the committed write moves with the
     * range; the open one is aborted at its commit, since a section began on its collection after its write, and none
     * of it appears anywhere.
     */
    @Test
    void aMigrationWaitsForAPreparedTransactionOfItsRangeAndTheOpenOneCannotCommitAfterIt() throws Exception {
        String ns = setUp("txnmig", 150);
        // as a routed statement would have (its shard version), the shard knows the collection's key before the writes
        ErrorReplies.requireOk(run("admin", new BsonDocument("_shardsvrRefreshCollection", new BsonString(ns))));
        dev.shardstore.contracts.session.LogicalSessionId open = dev.shardstore.contracts.session.LogicalSessionId.random();
        dev.shardstore.contracts.session.LogicalSessionId prepared = dev.shardstore.contracts.session.LogicalSessionId.random();
        ErrorReplies.requireOk(run("mig", inTransaction("{update: 'txnmig', updates: [{q: {x: 120}, u: {$inc: {n: 1}}}]}", open, true)));
        ErrorReplies.requireOk(run("mig", inTransaction("{update: 'txnmig', updates: [{q: {x: 121}, u: {$inc: {n: 7}}}]}", prepared, true)));
        BsonDocument vote = ErrorReplies.requireOk(run("admin", inTransaction("{prepareTransaction: 1}", prepared, false)));

        CompletableFuture<BsonDocument> move = moveAsync(ns, 100);
        await().atMost(Duration.ofSeconds(30)).until(() -> runtime.criticalSection(Namespace.parse(ns, "ns")).isPresent());
        assertThat(move).as("the section waits for the prepared transaction's decision").isNotDone();
        ErrorReplies.requireOk(run("admin", inTransaction("{commitTransaction: 1}", prepared, false).append("commitTimestamp", vote.get("prepareTimestamp"))));

        BsonDocument reply = move.get(60, TimeUnit.SECONDS);
        assertThat(ErrorReplies.isError(reply)).as(reply.toJson()).isFalse();
        assertThat(reply.getNumber("modsTransferred").intValue()).as("the prepared transaction's entry, after its decision").isEqualTo(1);
        BsonDocument lateCommit = run("admin", inTransaction("{commitTransaction: 1}", open, false));
        assertThat(lateCommit.getNumber("code").intValue()).as(lateCommit.toJson()).isEqualTo(251);
        List<BsonDocument> moved = documents(recipient.url(), "txnmig");
        assertThat(moved).filteredOn(d -> d.getInt32("x").getValue() == 121).singleElement()
                .satisfies(d -> assertThat(d.getNumber("n").intValue()).as("the committed write moved with the range").isEqualTo(7));
        assertThat(moved).filteredOn(d -> d.getInt32("x").getValue() == 120).singleElement()
                .satisfies(d -> assertThat(d.containsKey("n")).as("nothing of the aborted transaction").isFalse());
    }

    @Test
    void transferModsNeverSkipsAnEntryThatCommitsAfterALaterOne() throws Exception {
        String ns = setUp("order", 120);
        long hung = failPoints.configure(MigrationSourceManager.HANG_AFTER_CLONE, FailPointAction.pause(), 1);
        CompletableFuture<BsonDocument> move = moveAsync(ns, 50);
        assertThat(failPoints.awaitEntered(MigrationSourceManager.HANG_AFTER_CLONE, hung + 1, Duration.ofSeconds(30))).isTrue();
        String migrationId = activeMigrationId();
        BsonTimestamp before = oplog.allDurable();

        // writer A reserves its oplog time, then stops just before its commit; writer B, later in time, commits
        long committing = failPoints.configure(WriteUnitOfWork.BEFORE_COMMIT, FailPointAction.pause(), 1);
        CompletableFuture<BsonDocument> writerA = CompletableFuture.supplyAsync(() -> run("mig", "{insert: 'order', documents: [{_id: 'A', x: 60}]}"));
        assertThat(failPoints.awaitEntered(WriteUnitOfWork.BEFORE_COMMIT, committing + 1, Duration.ofSeconds(30))).isTrue();
        write("{insert: 'order', documents: [{_id: 'B', x: 61}]}");

        BsonDocument whileAIsOpen = run("admin", new BsonDocument("_transferMods", new BsonString(ns))
                .append("migrationId", new BsonString(migrationId)).append("after", before));
        assertThat(whileAIsOpen.getArray("entries")).as("B is not handed out while A, earlier in time, may still commit").isEmpty();

        failPoints.configure(WriteUnitOfWork.BEFORE_COMMIT, null, 0);
        assertThat(ErrorReplies.isError(writerA.get(30, TimeUnit.SECONDS))).isFalse();
        BsonDocument afterA = run("admin", new BsonDocument("_transferMods", new BsonString(ns))
                .append("migrationId", new BsonString(migrationId)).append("after", before));
        assertThat(afterA.getArray("entries").stream().map(e -> e.asDocument().getDocument("o2").get("_id")).toList())
                .as("both, in time order").containsExactly(new BsonString("A"), new BsonString("B"));

        failPoints.configure(MigrationSourceManager.HANG_AFTER_CLONE, null, 0);
        assertThat(ErrorReplies.isError(move.get(60, TimeUnit.SECONDS))).isFalse();
        assertThat(byId(documents(recipient.url(), "order")).keySet()).hasSize(50 + 2);
        assertThat(documents(recipient.url(), "order").stream().map(d -> d.get("_id")).toList())
                .contains(new BsonString("A"), new BsonString("B"));
    }

    @Test
    void aRecipientThatFailsAbortsTheMigrationAndItsPartialCopyIsDeleted() throws Exception {
        String ns = setUp("aborted", 100);
        FailPoints recipientPoints = recipient.bean(FailPoints.class);
        long cloned = recipientPoints.configure(MigrationDestinationManager.DURING_CLONE, FailPointAction.pause(), 1);
        CompletableFuture<BsonDocument> move = moveAsync(ns, 50);
        assertThat(recipientPoints.awaitEntered(MigrationDestinationManager.DURING_CLONE, cloned + 1, Duration.ofSeconds(30))).isTrue();
        assertThat(documents(recipient.url(), "aborted")).as("a partial copy").isNotEmpty();
        recipientPoints.configure(MigrationDestinationManager.DURING_CLONE, FailPointAction.error(ErrorCode.InternalError), 1);

        BsonDocument reply = move.get(60, TimeUnit.SECONDS);
        assertThat(ErrorReplies.isError(reply)).isTrue();
        assertThat(reply.getString("errmsg").getValue()).contains("aborted");
        assertThat(ConfigServerStub.instance().chunks(ns)).allMatch(c -> c.shard().equals(SHARD_NAME));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(documents(recipient.url(), "aborted")).as("the recipient's orphans are deleted").isEmpty());
        assertThat(recipient.bean(RangeDeletionStore.class).list()).isEmpty();
        assertThat(donorTasks.list()).as("the donor keeps its documents: its task is deleted").isEmpty();
        assertThat(donorCoordinators.list()).isEmpty();
        assertThat(documents(url(), "aborted")).hasSize(100);
        assertThat(ConfigServerStub.instance().changelog()).anyMatch(c -> c.getString("_configsvrLogChange").getValue().equals("moveChunk.error")
                && c.getString("ns").getValue().equals(ns));
    }

    /**
     * A clone page that fails after its statements ran and before its unit of work committed is rolled back whole: the
     * recipient keeps only the pages that committed (as many documents as its {@code moveChunk.to} entry counts cloned:
     * the recipient writes up to {@code clone-writers} pages at once, so which ones depends on timing), each whole and
     * every document as the donor has it; its partial range is deleted, and the move run again leaves each document of
     * the range once on the recipient.
     */
    @Test
    void aClonePageThatFailsBeforeItsCommitLeavesNoPartialDocumentAndTheMoveRunAgainNoDuplicate() throws Exception {
        String ns = setUp("rerun", 100);
        Map<Integer, BsonDocument> range = inRange(documents(url(), "rerun"), 50, 100);
        FailPoints recipientPoints = recipient.bean(FailPoints.class);
        long deleting = recipientPoints.configure(RangeDeleter.BEFORE_RANGE_DELETION, FailPointAction.pause(), 1);
        recipientPoints.configure(MigrationDestinationManager.BATCH_WRITTEN, FailPointAction.error(ErrorCode.InternalError), 1);

        BsonDocument failed = move(ns, 50);
        assertThat(ErrorReplies.isError(failed)).as(failed.toJson()).isTrue();
        assertThat(recipientPoints.awaitEntered(RangeDeleter.BEFORE_RANGE_DELETION, deleting + 1, Duration.ofSeconds(30))).isTrue();
        long cloned = await().atMost(Duration.ofSeconds(30)).until(() -> ConfigServerStub.instance().changelog().stream()
                .filter(c -> c.getString("_configsvrLogChange").getValue().equals("moveChunk.to") && c.getString("ns").getValue().equals(ns))
                .map(c -> c.getDocument("details")).filter(d -> d.getString("note").getValue().startsWith("aborted"))
                .findFirst(), Optional::isPresent).orElseThrow().getNumber("documentsCloned").longValue();
        Map<Integer, BsonDocument> kept = byId(documents(recipient.url(), "rerun"));
        assertThat(kept).as("the pages that committed; the failed one rolled back whole").hasSize((int) cloned);
        assertThat(kept.size() % 10).as("whole pages of 200 bytes: ten documents of 21").isZero();
        assertThat(range).containsAllEntriesOf(kept);
        recipientPoints.configure(RangeDeleter.BEFORE_RANGE_DELETION, null, 0);
        await().atMost(Duration.ofSeconds(30)).until(() -> recipient.bean(RangeDeletionStore.class).list().isEmpty()
                && donorTasks.list().isEmpty() && donorCoordinators.list().isEmpty());

        BsonDocument moved = move(ns, 50);
        assertThat(ErrorReplies.isError(moved)).as(moved.toJson()).isFalse();
        List<BsonDocument> received = documents(recipient.url(), "rerun");
        assertThat(ids(received)).as("each document once").doesNotHaveDuplicates().hasSize(50);
        assertThat(byId(received)).isEqualTo(range);
        BsonDocument byIndex = client.runChecked("shard", recipient.url(), "mig", ExtendedJson.parse(
                "{find: 'rerun', filter: {x: {$gte: 50, $lt: 100}}, hint: {x: 1}, batchSize: 1000}"));
        assertThat(byIndex.getDocument("cursor").getArray("firstBatch")).as("one x_1 entry per document").hasSize(50);
    }

    /**
     * A clone page that meets a unique index conflict on the recipient (a stray document of the range there) fails the
     * migration cleanly: the donor keeps the chunk and every document, and the recipient's partial range is deleted.
     */
    @Test
    void aClonePageThatHitsAUniqueIndexConflictFailsTheMigrationCleanly() throws Exception {
        String ns = setUp("unique", 100);
        write("{createIndexes: 'unique', indexes: [{key: {x: 1, y: 1}, name: 'x_1_y_1', unique: true}]}");
        BsonDocument stray = client.runChecked("shard", recipient.url(), "mig",
                ExtendedJson.parse("{insert: 'unique', documents: [{_id: 1000, x: 75}]}"));
        assertThat(stray.containsKey("writeErrors")).as(stray.toJson()).isFalse();

        BsonDocument reply = move(ns, 50);
        assertThat(ErrorReplies.isError(reply)).as(reply.toJson()).isTrue();
        assertThat(reply.getString("errmsg").getValue()).contains("aborted").contains("E11000").contains("x_1_y_1");
        assertThat(ConfigServerStub.instance().chunks(ns)).allMatch(c -> c.shard().equals(SHARD_NAME));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(documents(recipient.url(), "unique")).as("the recipient's partial range is deleted").isEmpty());
        await().atMost(Duration.ofSeconds(30)).until(() -> recipient.bean(RangeDeletionStore.class).list().isEmpty()
                && donorTasks.list().isEmpty() && donorCoordinators.list().isEmpty());
        assertThat(documents(url(), "unique")).as("the donor keeps every document").hasSize(100);
    }

    /**
     * MongoDB's steady-state check: a recipient that reports {@code steady} while a burst of writes it has not pulled yet
     * waits on the donor (more than one {@code _transferMods} batch) does not bring the critical section; once it pulled
     * them, the donor blocks writes and commits.
     */
    @Test
    void theDonorBlocksWritesOnlyOnceFewChangesAreLeftForTheRecipient() throws Exception {
        String ns = setUp("steady", 100);
        FailPoints recipientPoints = recipient.bean(FailPoints.class);
        long checked = failPoints.configure(MigrationSourceManager.BEFORE_STEADY_CHECK, FailPointAction.pause(), 1);
        CompletableFuture<BsonDocument> move = moveAsync(ns, 50);
        assertThat(failPoints.awaitEntered(MigrationSourceManager.BEFORE_STEADY_CHECK, checked + 1, Duration.ofSeconds(30))).isTrue();
        long caughtUp = recipientPoints.configure(MigrationDestinationManager.DURING_CATCHUP, FailPointAction.pause(), 1);
        BsonArray burst = new BsonArray();
        for (int i = 0; i < 1500; i++) {
            burst.add(new BsonDocument("_id", new BsonInt32(10_000 + i)).append("x", new BsonInt32(50 + i % 50)));
        }
        assertThat(ErrorReplies.isError(run("mig", new BsonDocument("insert", new BsonString("steady")).append("documents", burst)))).isFalse();
        assertThat(recipientPoints.awaitEntered(MigrationDestinationManager.DURING_CATCHUP, caughtUp + 1, Duration.ofSeconds(30))).isTrue();
        failPoints.configure(MigrationSourceManager.BEFORE_STEADY_CHECK, null, 0);

        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> donorPhase().equals("clone"));
        recipientPoints.configure(MigrationDestinationManager.DURING_CATCHUP, null, 0);
        BsonDocument reply = move.get(60, TimeUnit.SECONDS);
        assertThat(ErrorReplies.isError(reply)).as(reply.toJson()).isFalse();
        assertThat(documents(recipient.url(), "steady")).hasSize(1550);
        assertThat(reply.getNumber("criticalSectionMillis").longValue()).as("reported").isNotNegative();
    }

    @Test
    void rangeDeletionReportsItsRate() {
        String ns = setUp("rate", 100);
        long before = deletionRates().count();
        BsonDocument moved = move(ns, 50);
        assertThat(ErrorReplies.isError(moved)).as(moved.toJson()).isFalse();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(inRange(documents(url(), "rate"), 50, 100)).as("the donor's orphans are deleted").isEmpty());
        await().atMost(Duration.ofSeconds(30)).until(() -> deletionRates().count() > before);
        assertThat(deletionRates().max()).as("documents per second").isPositive();
    }

    @Test
    void aSecondRequestForTheSameMoveJoinsTheRunningOneAndAnyOtherIsRefused() throws Exception {
        String ns = setUp("joined", 120);
        long hung = failPoints.configure(MigrationSourceManager.HANG_AFTER_CLONE, FailPointAction.pause(), 1);
        CompletableFuture<BsonDocument> first = moveAsync(ns, 50);
        assertThat(failPoints.awaitEntered(MigrationSourceManager.HANG_AFTER_CLONE, hung + 1, Duration.ofSeconds(30))).isTrue();

        CompletableFuture<BsonDocument> second = moveAsync(ns, 50);
        BsonDocument other = move(ns, 100);
        assertThat(other.getInt32("code").getValue()).as(other.toJson()).isEqualTo(ErrorCode.ConflictingOperationInProgress.code());
        assertThat(recipient.bean(ActiveMigrationsRegistry.class).active()).as("the recipient is in the migration").hasSize(1);

        failPoints.configure(MigrationSourceManager.HANG_AFTER_CLONE, null, 0);
        BsonDocument one = first.get(60, TimeUnit.SECONDS);
        BsonDocument two = second.get(60, TimeUnit.SECONDS);
        assertThat(ErrorReplies.isError(one)).as(one.toJson()).isFalse();
        assertThat(two).as("the joined request gets the same result").isEqualTo(one);
    }

    @Test
    void aDdlBlockWaitsForTheRunningMigrationAndThenRefusesNewOnes() throws Exception {
        String ns = setUp("ddl", 80);
        long hung = failPoints.configure(MigrationSourceManager.HANG_AFTER_CLONE, FailPointAction.pause(), 1);
        CompletableFuture<BsonDocument> move = moveAsync(ns, 50);
        assertThat(failPoints.awaitEntered(MigrationSourceManager.HANG_AFTER_CLONE, hung + 1, Duration.ofSeconds(30))).isTrue();

        BsonDocument reason = ExtendedJson.parse("{command: 'dropCollection', ns: '" + ns + "'}");
        CompletableFuture<BsonDocument> block = CompletableFuture.supplyAsync(() -> run("mig", new BsonDocument("_shardsvrParticipantBlock",
                new BsonString("ddl")).append("blockType", new BsonString("ReadsAndWrites")).append("reason", reason)));
        try {
            BsonDocument early = block.get(1, TimeUnit.SECONDS);
            throw new AssertionError("the block should wait for the migration, got " + early.toJson());
        } catch (java.util.concurrent.TimeoutException expected) {
            // it waits for the migration of its namespace
        }
        failPoints.configure(MigrationSourceManager.HANG_AFTER_CLONE, null, 0);
        assertThat(ErrorReplies.isError(move.get(60, TimeUnit.SECONDS))).isFalse();
        assertThat(ErrorReplies.isError(block.get(30, TimeUnit.SECONDS))).isFalse();

        BsonDocument refused = move(ns, 100);
        assertThat(refused.getInt32("code").getValue()).as(refused.toJson()).isEqualTo(ErrorCode.ConflictingOperationInProgress.code());
        run("mig", new BsonDocument("_shardsvrParticipantBlock", new BsonString("ddl")).append("blockType", new BsonString("Unblock"))
                .append("reason", reason));
    }

    @Test
    void rangeDeletionWaitsForACursorOpenedBeforeTheCommit() throws Exception {
        String ns = setUp("cursor", 100);
        BsonDocument first = run("mig", dev.shardstore.shard.TestRouting.versioned(
                "{find: 'cursor', filter: {x: {$gte: 50, $lt: 100}}, batchSize: 5}", currentShardVersion(ns)));
        long cursorId = first.getDocument("cursor").getNumber("id").longValue();
        assertThat(cursorId).isNotZero();
        AtomicInteger returned = new AtomicInteger(first.getDocument("cursor").getArray("firstBatch").size());
        long deleting = failPoints.configure(RangeDeleter.BEFORE_RANGE_DELETION, FailPointAction.pause(), 1);

        // one document per getMore, every 300 ms, keeps the cursor alive (the tests' cursor timeout is 1.5 s)
        CompletableFuture<BsonDocument> move = moveAsync(ns, 50);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300)).until(() -> {
            returned.addAndGet(getMore(cursorId, 1));
            return move.isDone();
        });
        assertThat(ErrorReplies.isError(move.get())).isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> donorTasks.list().stream().anyMatch(t -> !t.pending()));
        // for 3 s, past the task's 1 s delay, the cursor stays open and nothing is deleted
        await("no deletion while the cursor may return the range").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(300)).until(() -> {
                    returned.addAndGet(getMore(cursorId, 1));
                    return failPoints.timesEntered(RangeDeleter.BEFORE_RANGE_DELETION) == deleting;
                });
        int last;
        do {
            last = getMore(cursorId, 1000);
            returned.addAndGet(last);
        } while (last > 0);
        assertThat(returned.get()).as("the cursor opened before the commit returns the whole range once").isEqualTo(50);

        assertThat(failPoints.awaitEntered(RangeDeleter.BEFORE_RANGE_DELETION, deleting + 1, Duration.ofSeconds(30))).isTrue();
        failPoints.configure(RangeDeleter.BEFORE_RANGE_DELETION, null, 0);
        donorRangeDeleter.awaitNoOrphans(dev.shardstore.contracts.namespace.Namespace.parse(ns), Duration.ofSeconds(30));
        assertThat(inRange(documents(url(), "cursor"), 50, 100)).isEmpty();
    }

    @Test
    void aCommittedMigrationClearsTheDonorsOpenTimeseriesBuckets() {
        await().atMost(Duration.ofSeconds(30)).until(() -> donorTasks.list().isEmpty() && donorCoordinators.list().isEmpty());
        write("{create: 'tsmoved', timeseries: {timeField: 't', metaField: 'm'}}");
        write("{insert: 'tsmoved', documents: [{t: {$date: '2024-01-01T00:00:00Z'}, m: 'a', v: 1}]}");
        Namespace bucketsNs = new Namespace("mig", "system.buckets.tsmoved");
        UUID uuid = collectionCatalog.find(bucketsNs).orElseThrow().uuid();
        assertThat(bucketCatalog.hasOpenBuckets(uuid)).isTrue();
        ShardedCollection sharded = collection(bucketsNs.full(), "{meta: 1}");
        ConfigServerStub.instance().putRoutingTable(sharded, List.of(
                chunk(sharded, "{meta: {$minKey: 1}}", "{meta: 'm'}", SHARD_NAME, 1, 0),
                chunk(sharded, "{meta: 'm'}", "{meta: {$maxKey: 1}}", SHARD_NAME, 1, 1)));
        Chunk moving = ConfigServerStub.instance().chunks(bucketsNs.full()).getFirst();

        BsonDocument moved = run("admin", new BsonDocument("_shardsvrMoveRange", new BsonString(bucketsNs.full()))
                .append("min", moving.range().min()).append("max", moving.range().max()).append("chunkVersion", moving.lastmod().toBson())
                .append("fromShard", new BsonString(SHARD_NAME)).append("toShard", new BsonString(RECIPIENT))
                .append("maxChunkSizeBytes", new org.bson.BsonInt64(128L * 1024 * 1024)));

        assertThat(ErrorReplies.isError(moved)).as(moved.toJson()).isFalse();
        assertThat(bucketCatalog.hasOpenBuckets(uuid)).as("the open bucket of a is an orphan here now").isFalse();
    }

    /** One getMore of {@code batchSize} on {@code mig.cursor}; how many documents it returned (0 once exhausted). */
    private int getMore(long cursorId, int batchSize) {
        BsonDocument reply = run("mig", new BsonDocument("getMore", new org.bson.BsonInt64(cursorId)).append("collection", new BsonString("cursor"))
                .append("batchSize", new BsonInt32(batchSize)));
        if (ErrorReplies.isError(reply)) {
            assertThat(reply.getInt32("code").getValue()).as(reply.toJson()).isEqualTo(ErrorCode.CursorNotFound.code());
            return 0;
        }
        return reply.getDocument("cursor").getArray("nextBatch").size();
    }

    // --- helpers ---------------------------------------------------------------------------------------------

    /** Shards {@code mig.<coll>} (three chunks on the donor), with its shard key index, and inserts {@code n} documents. */
    private String setUp(String coll, int n) {
        // no earlier test's orphans left to delete: the fail points below must meet this test's steps
        await().atMost(Duration.ofSeconds(30)).until(() -> donorTasks.list().isEmpty()
                && recipient.bean(RangeDeletionStore.class).list().isEmpty() && donorCoordinators.list().isEmpty());
        String ns = "mig." + coll;
        ShardedCollection sharded = collection(ns, "{x: 1}");
        ConfigServerStub.instance().putRoutingTable(sharded, List.of(
                chunk(sharded, "{x: {$minKey: 1}}", "{x: 50}", SHARD_NAME, 1, 0),
                chunk(sharded, "{x: 50}", "{x: 100}", SHARD_NAME, 1, 1),
                chunk(sharded, "{x: 100}", "{x: {$maxKey: 1}}", SHARD_NAME, 1, 2)));
        write("{createIndexes: '" + coll + "', indexes: [{key: {x: 1}, name: 'x_1'}]}");
        BsonArray docs = new BsonArray();
        for (int i = 0; i < n; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i)).append("x", new BsonInt32(i)));
        }
        assertThat(ErrorReplies.isError(run("mig", new BsonDocument("insert", new BsonString(coll)).append("documents", docs)))).isFalse();
        return ns;
    }

    private Chunk chunkAt(String ns, int min) {
        return ConfigServerStub.instance().chunks(ns).stream().filter(c -> c.range().min().isInt32("x")
                && c.range().min().getInt32("x").getValue() == min).findFirst().orElseThrow();
    }


    private dev.shardstore.contracts.version.ChunkVersion currentShardVersion(String ns) {
        return ConfigServerStub.instance().chunks(ns).stream().filter(c -> c.shard().equals(SHARD_NAME)).map(Chunk::lastmod)
                .max(dev.shardstore.contracts.version.ChunkVersion::compareTo).orElseThrow();
    }

    /** {@code _shardsvrMoveRange} of the chunk starting at {@code x: min} to the recipient. */
    private BsonDocument moveCommand(String ns, int min) {
        Chunk chunk = chunkAt(ns, min);
        return new BsonDocument("_shardsvrMoveRange", new BsonString(ns))
                .append("min", chunk.range().min()).append("max", chunk.range().max())
                .append("chunkVersion", chunk.lastmod().toBson())
                .append("fromShard", new BsonString(SHARD_NAME)).append("toShard", new BsonString(RECIPIENT))
                .append("maxChunkSizeBytes", new org.bson.BsonInt64(128L * 1024 * 1024));
    }

    private BsonDocument move(String ns, int min) {
        return run("admin", moveCommand(ns, min));
    }

    private CompletableFuture<BsonDocument> moveAsync(String ns, int min) {
        BsonDocument command = moveCommand(ns, min);
        return CompletableFuture.supplyAsync(() -> run("admin", command));
    }

    private String activeMigrationId() {
        BsonArray inprog = run("admin", "{currentOp: 1}").getArray("inprog");
        assertThat(inprog).hasSize(1);
        return inprog.get(0).asDocument().getString("migrationId").getValue();
    }

    private io.micrometer.core.instrument.DistributionSummary deletionRates() {
        return meters.summary(dev.shardstore.shard.ShardMetrics.RANGE_DELETION_RATE);
    }

    /** The phase of the donor's one running migration ({@code currentOp}). */
    private String donorPhase() {
        BsonArray inprog = run("admin", "{currentOp: 1}").getArray("inprog");
        assertThat(inprog).hasSize(1);
        return inprog.get(0).asDocument().getString("phase").getValue();
    }

    private void write(String json) {
        BsonDocument reply = run("mig", json);
        assertThat(ErrorReplies.isError(reply) || reply.containsKey("writeErrors")).as(json + " -> " + reply.toJson()).isFalse();
    }

    private String url() {
        return "http://127.0.0.1:" + port;
    }

    /** Every document of {@code mig.coll} on the shard at {@code url} (unversioned: orphans included). */
    private List<BsonDocument> documents(String url, String coll) {
        BsonDocument reply = client.runChecked("shard", url, "mig", new BsonDocument("find", new BsonString(coll))
                .append("batchSize", new BsonInt32(10_000)));
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private static List<Integer> ids(List<BsonDocument> documents) {
        return documents.stream().map(d -> d.getInt32("_id").getValue()).toList();
    }

    private static Map<Integer, BsonDocument> inRange(List<BsonDocument> documents, int min, int max) {
        return byId(documents.stream().filter(d -> d.getNumber("x").intValue() >= min && d.getNumber("x").intValue() < max).toList());
    }

    private static Map<Integer, BsonDocument> outside(List<BsonDocument> documents, int min, int max) {
        return byId(documents.stream().filter(d -> d.getNumber("x").intValue() < min || d.getNumber("x").intValue() >= max).toList());
    }

    private static Map<Integer, BsonDocument> byId(List<BsonDocument> documents) {
        Map<Integer, BsonDocument> out = new TreeMap<>();
        for (BsonDocument d : documents) {
            out.put(d.get("_id").isInt32() ? d.getInt32("_id").getValue() : -1 - out.size(), d);
        }
        return out;
    }
}
