package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.support.operation.Deadline;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.cursor.Batch;
import dev.shardstore.shard.cursor.CursorManager;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * {@code maxTimeMS} on a real shard: a scan that runs past it fails with MaxTimeMSExpired (50) in find, count,
 * distinct, aggregate and (as the statement's write error) a multi-document update, which writes nothing after that point; a generous limit changes
 * nothing; bad values and a getMore's own maxTimeMS are BadValue; and a cursor's getMores spend one budget together.
 */
class MaxTimeMSTest extends ShardIntegrationTest {
    private static final String DB = "maxtimedb";
    /** Enough documents that scanning them all takes far longer than 1 ms (20 PostgreSQL pages and 20,000 decodes). */
    private static final int DOCUMENTS = 20_000;
    private static boolean loaded;

    @Autowired
    CursorManager cursors;

    @BeforeAll
    static void reset() {
        loaded = false;
    }

    private void load() {
        if (loaded) {
            return;
        }
        BsonArray docs = new BsonArray();
        for (int i = 0; i < DOCUMENTS; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i)).append("n", new BsonInt32(i)).append("s", new BsonString("v" + i)));
        }
        BsonDocument reply = run(DB, new BsonDocument("insert", new BsonString("big")).append("documents", docs));
        assertThat(reply.getNumber("n").intValue()).as(reply.toJson()).isEqualTo(DOCUMENTS);
        loaded = true;
    }

    private static void assertCode(BsonDocument reply, int code) {
        assertThat(reply.getNumber("code", new BsonInt32(0)).intValue()).as(reply.toJson()).isEqualTo(code);
    }

    @Test
    void aScanPastItsMaxTimeMSFailsWithMaxTimeMSExpired() {
        load();
        assertCode(run(DB, "{find: 'big', filter: {nothing: 1}, maxTimeMS: 1}"), 50);
        assertCode(run(DB, "{count: 'big', query: {nothing: 1}, maxTimeMS: 1}"), 50);
        assertCode(run(DB, "{distinct: 'big', key: 's', maxTimeMS: 1}"), 50);
        assertCode(run(DB, "{aggregate: 'big', pipeline: [{$group: {_id: null, total: {$sum: '$n'}}}], cursor: {}, maxTimeMS: 1}"), 50);
        BsonDocument update = run(DB, "{update: 'big', updates: [{q: {}, u: {$set: {touched: true}}, multi: true}], maxTimeMS: 1}");
        assertThat(update.getArray("writeErrors")).as(update.toJson()).singleElement() // a statement's failure, as mongod reports it
                .satisfies(e -> assertThat(e.asDocument().getNumber("code").intValue()).isEqualTo(50));
        assertThat(run(DB, "{count: 'big', query: {touched: true}}").getNumber("n").intValue()).as("stopped early").isLessThan(DOCUMENTS);

        BsonDocument generous = run(DB, "{count: 'big', query: {nothing: 1}, maxTimeMS: 600000}");
        assertThat(generous.getNumber("n").intValue()).as(generous.toJson()).isZero();
        assertThat(run(DB, "{count: 'big', maxTimeMS: 0}").getNumber("n").intValue()).as("0 means no limit").isEqualTo(DOCUMENTS);
    }

    @Test
    void badValuesAndAGetMoresOwnMaxTimeMSAreRefused() {
        for (String value : List.of("-1", "1.5", "'10'", "2147483648")) {
            assertCode(run(DB, "{find: 'big', maxTimeMS: " + value + "}"), 2);
        }
        assertCode(run(DB, "{getMore: {$numberLong: '12345'}, collection: 'big', maxTimeMS: 5}"), 2);
    }

    @Test
    void aCursorsGetMoresSpendOneBudget() {
        AtomicInteger batches = new AtomicInteger();
        AtomicLong ticker = new AtomicLong();
        // each batch takes 1.2 s (on the test's ticker) of a 2 s budget: the first getMore fits, the second runs out
        OperationContext find = OperationContext.internal("test").withDeadline(Deadline.after(TimeUnit.SECONDS.toNanos(2), ticker::get));
        long id = cursors.register(find, DB + ".slow", null, (batchCtx, max) -> {
            ticker.addAndGet(TimeUnit.MILLISECONDS.toNanos(1200));
            batchCtx.checkForInterrupt(); // what a scan does between pages
            return new Batch(List.of(new BsonDocument("batch", new BsonInt32(batches.incrementAndGet()))), false);
        });

        OperationContext getMore = OperationContext.internal("test").withDeadline(Deadline.none(ticker::get));
        assertThat(cursors.getMore(getMore, id, DB + ".slow", 1).documents()).hasSize(1);
        assertThatThrownBy(() -> cursors.getMore(getMore, id, DB + ".slow", 1)).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.MaxTimeMSExpired));
        assertThatThrownBy(() -> cursors.getMore(getMore, id, DB + ".slow", 1)).as("a cursor that ran out is closed")
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CursorNotFound));
    }
}
