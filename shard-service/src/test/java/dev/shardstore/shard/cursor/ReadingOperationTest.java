package dev.shardstore.shard.cursor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.spill.ExternalSorter;
import dev.shardstore.engine.spill.MemoryLimits;
import dev.shardstore.engine.spill.SpillDirectory;
import dev.shardstore.engine.spill.SpillStats;
import dev.shardstore.support.operation.Caller;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.support.operation.OperationRegistry;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A spilled sort behind a cursor checks the operation that reads the cursor now: a getMore merging the runs after the
 * opening command's {@code maxTimeMS} has passed on the ticker is not refused for that passed deadline (the getMore
 * spends its own share), and a killed getMore stops the merge with Interrupted (11601), the runs deleted. Time is a
 * counter the test moves.
 */
class ReadingOperationTest {
    private static final int DOCUMENTS = 1000;

    @TempDir
    Path dir;

    private final AtomicLong ticks = new AtomicLong();
    private final OperationRegistry operations = new OperationRegistry(ticks::get);

    /** A cursor over a sort of {@link #DOCUMENTS} documents spilled in runs of about 1 KB, opened by {@code opening}. */
    private StreamCursor spilledSort(OperationContext opening, SpillDirectory spill) {
        ReadingOperation reading = new ReadingOperation(opening);
        MemoryLimits limits = new MemoryLimits(1024, 1024, true, spill, reading);
        ExternalSorter sorter = ExternalSorter.of("$sort", Comparator.comparingInt((BsonDocument d) -> d.getInt32("k").getValue()),
                Long.MAX_VALUE, limits, new SpillStats());
        for (int i = 0; i < DOCUMENTS; i++) {
            sorter.add(new BsonDocument("k", new BsonInt32(i * 7919 % DOCUMENTS)));
        }
        return StreamCursor.buffered(sorter.sorted(), limits, UnaryOperator.identity(), () -> true, reading);
    }

    private OperationContext command(String json, long maxTimeMs) {
        return OperationContext.forCommand(Caller.peer(), BsonDocument.parse(json), maxTimeMs, ticks::get);
    }

    @Test
    void aGetMoreMergesAfterTheOpeningCommandsDeadlinePassed() {
        SpillDirectory spill = SpillDirectory.open(dir);
        OperationContext opening = command("{aggregate: 'c', maxTimeMS: 5}", 5);
        StreamCursor cursor = spilledSort(opening, spill);
        assertThat(spill.files()).isNotEmpty();
        assertThat(cursor.next(opening, 10).documents()).hasSize(10);
        ticks.addAndGet(10_000_000); // the aggregate's 5 ms are over; the getMore has no limit of its own
        Batch rest = cursor.next(command("{getMore: 1, collection: 'c'}", 0), DOCUMENTS);
        assertThat(rest.documents()).hasSize(DOCUMENTS - 10);
        assertThat(rest.exhausted()).isTrue();
        assertThat(spill.files()).isEmpty();
    }

    @Test
    void aKilledGetMoreStopsTheMergeAndItsRunsGo() {
        SpillDirectory spill = SpillDirectory.open(dir);
        OperationContext opening = command("{aggregate: 'c'}", 0);
        StreamCursor cursor = spilledSort(opening, spill);
        assertThat(cursor.next(opening, 10).documents()).hasSize(10);
        BsonDocument getMore = BsonDocument.parse("{getMore: 1, collection: 'c'}");
        OperationContext getMoreCtx = command(getMore.toJson(), 0)
                .withOperation(operations.register(Caller.peer(), "db", getMore, null));
        operations.kill(getMoreCtx.operation().orElseThrow().opid());
        assertThatThrownBy(() -> cursor.next(getMoreCtx, DOCUMENTS)).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.Interrupted));
        assertThat(spill.files()).as("the interrupted merge deleted its runs").isEmpty();
    }
}
