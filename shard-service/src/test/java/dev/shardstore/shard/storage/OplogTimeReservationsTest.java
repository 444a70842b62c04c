package dev.shardstore.shard.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.ShardIntegrationTest;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;

class OplogTimeReservationsTest extends ShardIntegrationTest {
    private static final long SECONDS_2038 = 1L << 31;
    private static final long LAST_SECOND = (1L << 32) - 1;

    @Autowired
    OplogTimeReservations clock;
    @Autowired
    TransactionTemplate tx;

    @Test
    void reservationsIncreaseAndStartAboveTheOplog() {
        OplogTimeReservations own = new OplogTimeReservations(jdbc, systemClock());
        long first = own.reserve(5).first();
        long second = own.reserve(1).first();

        assertThat(second).isEqualTo(first + 5);
        assertThat(own.latest().getValue()).isEqualTo(second);
        assertThat(first >>> 32).isGreaterThanOrEqualTo(System.currentTimeMillis() / 1000 - 1);

        // A restart after the wall clock went back: the oplog holds a time ahead of the wall clock. (Rolled back, so
        // that the shared oplog does not keep an entry from the future.)
        long future = (System.currentTimeMillis() / 1000 + 100_000) << 32 | 7;
        long restarted = tx.execute(status -> {
            status.setRollbackOnly();
            jdbc.sql("INSERT INTO oplog (ts_key, op, ns) VALUES (?, 'c', 'clock.$cmd')").param(Oplog.storedTs(future)).update();
            return new OplogTimeReservations(jdbc, systemClock()).reserve(1).first();
        });
        assertThat(restarted).isEqualTo(future + 1);
    }

    @Test
    void theAllDurablePointStaysBelowTheOldestReservationInFlightWhateverOrderTheyEndIn() {
        OplogTimeReservations own = new OplogTimeReservations(jdbc, systemClock());
        OplogTimeReservations.Reservation a = own.reserve(3);
        OplogTimeReservations.Reservation b = own.reserve(1);
        OplogTimeReservations.Reservation c = own.reserve(2);
        assertThat(own.allDurable().getValue()).isEqualTo(a.first() - 1);
        assertThat(own.inFlight()).isEqualTo(3);

        c.release();
        b.release();
        assertThat(own.allDurable().getValue()).as("b and c ended, a is still open").isEqualTo(a.first() - 1);

        a.release();
        a.release();
        assertThat(own.allDurable()).isEqualTo(own.latest());
        assertThat(own.latest().getValue()).isEqualTo(c.first() + 1);
        assertThat(own.inFlight()).isZero();
    }

    @Test
    void timesPast2038AndUpTo2106KeepIncreasingAndStoreInOrder() {
        AtomicLong wall = new AtomicLong(SECONDS_2038 - 1);
        OplogTimeReservations own = new OplogTimeReservations(jdbc, new LogicalClock(wall::get, LogicalClock.DEFAULT_MAX_DRIFT));
        long before2038 = own.reserve(1).first();
        wall.set(SECONDS_2038);
        long in2038 = own.reserve(1).first();
        wall.set(LAST_SECOND);
        long lastSecond = own.reserve(2).first();

        assertThat(in2038).as("the raw value turns negative in 2038").isNegative();
        assertThat(new BsonTimestamp(in2038).getTime() & 0xFFFF_FFFFL).isEqualTo(SECONDS_2038);
        assertThat(Long.compareUnsigned(before2038, in2038)).isNegative();
        assertThat(Long.compareUnsigned(in2038, lastSecond)).isNegative();
        assertThat(Oplog.storedTs(before2038)).isLessThan(Oplog.storedTs(in2038));
        assertThat(Oplog.storedTs(in2038)).isLessThan(Oplog.storedTs(lastSecond));
        assertThat(Oplog.storedTs(lastSecond)).isLessThan(Oplog.storedTs(lastSecond + 1));
        assertThat(Oplog.tsOf(Oplog.storedTs(lastSecond))).isEqualTo(lastSecond);
        assertThat(own.allDurable().getValue()).isEqualTo(before2038 - 1);

        // the increments of the last second run out: there is no later Timestamp
        own.reserve(Integer.MAX_VALUE);
        assertThatThrownBy(() -> own.reserve(Integer.MAX_VALUE)).isInstanceOf(IllegalStateException.class).hasMessageContaining("2106");
    }

    private static LogicalClock systemClock() {
        return new LogicalClock(LogicalClock.DEFAULT_MAX_DRIFT);
    }

    @Test
    void theOplogTakesItsTimesFromTheProcessClockWhichGossipMoves() {
        LogicalClock process = systemClock();
        OplogTimeReservations own = new OplogTimeReservations(jdbc, process);
        assertThat(process.clusterTime()).as("moved up to the newest oplog entry").isEqualTo(own.latest());

        long gossiped = (System.currentTimeMillis() / 1000 + 3600) << 32 | 42;
        process.advanceTo(new BsonTimestamp(gossiped));
        long next = own.reserve(1).first();

        assertThat(next).as("the next write is after every time the process has seen").isEqualTo(gossiped + 1);
        assertThat(process.clusterTime().getValue()).isEqualTo(next);
    }

    @Test
    void aReadAfterAClusterTimeWaitsForTheWritesAtOrBeforeItAndOnlyForThose() throws Exception {
        OplogTimeReservations own = new OplogTimeReservations(jdbc, systemClock());
        OplogTimeReservations.Reservation before = own.reserve(1);
        OplogTimeReservations.Reservation after = own.reserve(1);
        BsonTimestamp readAt = new BsonTimestamp(before.first());

        Thread reader = Thread.ofPlatform().start(() -> own.awaitDurable(readAt, Duration.ofMinutes(1)));
        while (reader.getState() != Thread.State.TIMED_WAITING) { // the reader is parked on the clock's monitor
            Thread.onSpinWait();
        }
        assertThat(reader.isAlive()).isTrue();
        before.release(); // the write at readAt commits; the later one still runs, and does not hold the reader
        reader.join(Duration.ofSeconds(30));
        assertThat(reader.isAlive()).as("released once the writes up to its time were over").isFalse();

        assertThatThrownBy(() -> own.awaitDurable(new BsonTimestamp(after.first() + 1000), Duration.ofMillis(50)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.MaxTimeMSExpired))
                .hasMessageContaining("afterClusterTime");
        after.release();
        own.awaitDurable(new BsonTimestamp(after.first() + 1000), Duration.ofMinutes(1)); // every write is over: no wait
    }
}
