package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.engine.spill.MemoryBudgets;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.support.failpoint.FailPointAction;
import dev.shardstore.support.failpoint.FailPoints;
import dev.shardstore.support.parameter.ServerParameters;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * {@code $currentOp} and {@code killOp} on a real shard (MongoDB manual "$currentOp (aggregation)", "killOp"): a
 * spilling aggregate held by the fail point {@code spill.beforeMerge}, its runs on disk, is listed in MongoDB's shape,
 * and a {@code killOp} of it ends it with Interrupted (11601) and no spill file left; the stage's option errors.
 */
class CurrentOpTest extends ShardIntegrationTest {
    private static final String DB = "currentopdb";
    private static final int DOCUMENTS = 1500;

    @Autowired
    FailPoints failPoints;
    @Autowired
    MemoryBudgets budgets;

    private BsonValue sortBudget;

    @BeforeEach
    void aSmallSortBudgetAndData() {
        sortBudget = run("admin", "{getParameter: 1, " + ServerParameters.SORT_MEMORY.name() + ": 1}").get(ServerParameters.SORT_MEMORY.name());
        setSortBudget(new BsonInt64(16 * 1024));
        if (documentsOf(DB, "items").isEmpty()) {
            BsonArray batch = new BsonArray();
            for (int i = 0; i < DOCUMENTS; i++) {
                batch.add(new BsonDocument("_id", new BsonInt32(i)).append("s", new BsonString(Integer.toString(i * 7919 % DOCUMENTS, 36))));
            }
            assertThat(run(DB, new BsonDocument("insert", new BsonString("items")).append("documents", batch)).getNumber("n").intValue())
                    .isEqualTo(DOCUMENTS);
        }
    }

    @AfterEach
    void restore() {
        failPoints.configure(ServerParameterCommands.SPILL_BEFORE_MERGE, null, 0);
        setSortBudget(sortBudget);
    }

    @Test
    void aHeldSpillingAggregateIsListedAndAKillOpEndsItWithoutSpillFiles() throws Exception {
        long entered = failPoints.timesEntered(ServerParameterCommands.SPILL_BEFORE_MERGE);
        failPoints.configure(ServerParameterCommands.SPILL_BEFORE_MERGE, FailPointAction.pause(), 1);
        CompletableFuture<BsonDocument> held = CompletableFuture.supplyAsync(() ->
                run(DB, "{aggregate: 'items', pipeline: [{$sort: {s: 1}}], cursor: {}, comment: 'held sort'}"));
        assertThat(failPoints.awaitEntered(ServerParameterCommands.SPILL_BEFORE_MERGE, entered + 1, Duration.ofSeconds(30))).isTrue();
        assertThat(budgets.spillDirectory().files()).as("the held sort's runs").isNotEmpty();

        List<BsonDocument> listed = currentOp("{$currentOp: {}}, {$match: {'command.comment': 'held sort'}}");
        assertThat(listed).hasSize(1);
        BsonDocument op = listed.getFirst();
        assertThat(op.getString("type").getValue()).isEqualTo("op");
        assertThat(op.get("opid").isInt64()).isTrue();
        assertThat(op.getBoolean("active").getValue()).isTrue();
        assertThat(op.getString("op").getValue()).isEqualTo("command");
        assertThat(op.getString("ns").getValue()).isEqualTo(DB + ".items");
        assertThat(op.getDocument("command").getString("aggregate").getValue()).isEqualTo("items");
        assertThat(op.getInt64("secs_running").getValue()).isNotNegative();
        assertThat(op.getInt64("microsecs_running").getValue()).isNotNegative();
        assertThat(op.getString("desc").getValue()).as("run through the internal endpoint").isEqualTo("internal");
        assertThat(op.containsKey("effectiveUsers")).as("no users: authorization is off").isFalse();
        assertThat(currentOp("{$currentOp: {allUsers: true, localOps: false}}, {$match: {'command.aggregate': 1}}, {$project: {ns: 1, _id: 0}}"))
                .as("the $currentOp aggregate lists itself").containsExactly(new BsonDocument("ns", new BsonString("admin.$cmd")));

        BsonDocument killed = run("admin", new BsonDocument("killOp", new BsonInt32(1)).append("op", op.get("opid")));
        assertThat(killed).isEqualTo(BsonDocument.parse("{info: 'attempting to kill op', ok: 1.0}"));
        BsonDocument reply = held.get(30, TimeUnit.SECONDS);
        assertError(reply, 11601, "operation was interrupted");
        assertThat(budgets.spillDirectory().files()).as("the killed sort deleted its runs").isEmpty();
        assertThat(currentOp("{$currentOp: {}}, {$match: {'command.comment': 'held sort'}}")).isEmpty();
    }

    @Test
    void killOpOfAnUnknownOperationIsStillOkAndItsOpIsChecked() {
        assertThat(run("admin", "{killOp: 1, op: {$numberLong: '987654321'}}")).isEqualTo(BsonDocument.parse("{info: 'attempting to kill op', ok: 1.0}"));
        assertThat(run("admin", "{killOp: 1, op: 12}").getNumber("ok").intValue()).isEqualTo(1);
        assertError(run("admin", "{killOp: 1}"), 9, "\"op\"");
        assertError(run("admin", "{killOp: 1, op: 'shard-it:12'}"), 14, "\"op\"");
        assertError(run("admin", "{killOp: 1, op: 1.5}"), 14, "\"op\"");
        assertError(run(DB, "{killOp: 1, op: 12}"), 13, "admin database");
    }

    @Test
    void optionErrorsNameTheOption() {
        assertError(run("admin", "{aggregate: 1, pipeline: [{$currentOp: {verbose: true}}], cursor: {}}"), 9, "'verbose'");
        assertError(run("admin", "{aggregate: 1, pipeline: [{$currentOp: 'all'}], cursor: {}}"), 9, "object");
        assertError(run("admin", "{aggregate: 1, pipeline: [{$currentOp: {allUsers: 1}}], cursor: {}}"), 14, "'allUsers'");
        assertError(run(DB, "{aggregate: 1, pipeline: [{$currentOp: {}}], cursor: {}}"), 73, "'admin' database");
        assertError(run("admin", "{aggregate: 'items', pipeline: [{$currentOp: {}}], cursor: {}}"), 73, "{aggregate: 1}");
        assertError(run("admin", "{aggregate: 1, pipeline: [{$match: {}}, {$currentOp: {}}], cursor: {}}"), 40602, "first stage");
        assertError(run("admin", "{aggregate: 1, pipeline: [{$currentOp: {}}, {$currentOp: {}}], cursor: {}}"), 40602, "first stage");
        for (String option : List.of("idleConnections", "idleCursors", "idleSessions", "backtrace")) {
            assertError(run("admin", "{aggregate: 1, pipeline: [{$currentOp: {" + option + ": true}}], cursor: {}}"), 238, "'" + option);
            assertThat(run("admin", "{aggregate: 1, pipeline: [{$currentOp: {" + option + ": false}}], cursor: {}}").getNumber("ok").intValue())
                    .isEqualTo(1);
        }
        assertError(run("admin", "{aggregate: 1, pipeline: [{$currentOp: {}}]}"), 9, "'cursor' option is required");
    }

    private List<BsonDocument> currentOp(String stages) {
        BsonDocument reply = run("admin", "{aggregate: 1, pipeline: [" + stages + "], cursor: {}}");
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
        assertThat(reply.getDocument("cursor").getString("ns").getValue()).isEqualTo("admin.$cmd.aggregate");
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private void setSortBudget(BsonValue bytes) {
        BsonDocument reply = run("admin", new BsonDocument("setParameter", new BsonInt32(1)).append(ServerParameters.SORT_MEMORY.name(), bytes));
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
    }

    private static void assertError(BsonDocument reply, int code, String messagePart) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isZero();
        assertThat(reply.getNumber("code").intValue()).as(reply.toJson()).isEqualTo(code);
        assertThat(reply.getString("errmsg").getValue()).contains(messagePart);
    }
}
