package dev.shardstore.shard.storage;

import dev.shardstore.contracts.clock.LogicalClock;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.bson.BsonTimestamp;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The oplog's view of the process's {@link LogicalClock}: hands out strictly increasing cluster times, as BSON
 * Timestamps {@code (seconds, increment)}, for oplog entries (ticking the one logical clock, which gossip also moves),
 * and knows the oplog's <b>all-durable point</b>. At startup it moves the logical clock above the newest oplog entry,
 * so a restart (or a wall clock that went back) never reuses a time.
 *
 * <p>Times are a Timestamp's 64-bit value, {@code seconds << 32 | increment}, compared <em>unsigned</em>: seconds
 * run up to 2^32 - 1 (the year 2106), so from 2038 on the value has its sign bit set. The oplog stores them in
 * an order-preserving signed form ({@link Oplog#storedTs}).
 *
 * <p><b>The all-durable point.</b> A time is handed out (reserved) before the transaction that writes its oplog
 * entry commits, and transactions commit in any order: entry 11 can be visible while entry 10's transaction is
 * still open. So every reservation is registered as <i>in flight</i> in the same monitor section that hands it
 * out, and stays registered until its transaction has completed (committed or rolled back,
 * {@link WriteUnitOfWork} releases it). {@link #allDurable()} is just below the oldest reservation still in flight,
 * or the newest time handed out when none is: every time at or below it belongs to a transaction that is over, so
 * no entry at or below it can still appear. A reader that asks for the point first and then reads entries up to it
 * reads a final prefix of the oplog (docs/architecture.md "Shard storage and the oplog").
 *
 * <p>Thread-safe; reserving and releasing take a few nanoseconds under the monitor and never block on I/O.
 */
@Component
public class OplogTimeReservations {
    private final LogicalClock clock;
    /** Reservations in flight, in the order handed out, which is also their time order. */
    private final Set<Reservation> inFlight = new LinkedHashSet<>();
    /** The last time handed out to the oplog. */
    private long last;

    /** The oplog's clock on the process's {@code clock}, which it moves up to the newest entry of the oplog. */
    public OplogTimeReservations(JdbcClient jdbc, LogicalClock clock) {
        this.clock = clock;
        this.last = Oplog.tsOf(jdbc.sql("SELECT coalesce(max(ts_key), ?) FROM oplog")
                .param(Oplog.storedTs(0)).query(Long.class).single());
        clock.advanceTo(new BsonTimestamp(last));
    }

    /**
     * Reserves {@code count} consecutive cluster times, {@code [first, first + count)}, all in one second and
     * all above every earlier one, and registers them as in flight until {@link Reservation#release()}.
     *
     * @param count at least 1
     */
    public synchronized Reservation reserve(int count) {
        // ticked under this monitor, so reservations enter inFlight in time order
        long first = clock.tick(count).getValue();
        last = first + count - 1;
        Reservation reservation = new Reservation(first, count);
        inFlight.add(reservation);
        return reservation;
    }

    /**
     * Registers again, at start-up, the times {@code [first, first + count)} of a transaction that was prepared before
     * the shard stopped (its oplog entries are in PostgreSQL's prepared transaction, not yet visible): in flight until
     * its decision is applied, and never handed out again. Call before the shard serves commands, in time order.
     */
    public synchronized Reservation recoverPrepared(long first, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a prepared transaction's reservation has at least one time, not " + count);
        }
        long newest = first + count - 1;
        if (Long.compareUnsigned(newest, last) > 0) {
            last = newest;
            clock.advanceTo(new BsonTimestamp(last));
        }
        Reservation reservation = new Reservation(first, count);
        inFlight.add(reservation);
        return reservation;
    }

    /**
     * A stand-in for {@code count} times of a multi-document transaction's oplog entries before the transaction
     * takes its real ones: {@code [first, first + count)} in the range no real time reaches (a Timestamp's seconds
     * at 2^31 and above, whose stored form {@link Oplog#storedTs} is positive), never in flight, so it holds nothing
     * back; releasing it does nothing. The entries written with it are renumbered to real times by
     * {@link WriteUnitOfWork#commitTransaction} in the same PostgreSQL transaction, so none is ever seen with it.
     *
     * @param first a time with its top bit set
     */
    Reservation provisional(long first, int count) {
        if (first >= 0 || count < 1) {
            throw new IllegalArgumentException("a provisional reservation lies above every real time: " + first + " x" + count);
        }
        return new Reservation(first, count);
    }

    /**
     * Moves the clock to at least {@code time}, so every later reservation is above it: a prepared transaction's commit
     * at the coordinator's commit time (which another participant's prepare may have set, ahead of this shard's clock)
     * must precede, in time, every write that follows it here, such as the next write of a document it changed, or a
     * snapshot read between the two would undo the commit and miss the write.
     */
    public synchronized void advanceTo(BsonTimestamp time) {
        clock.advanceTo(time);
    }

    /** The latest cluster time handed out (a zero Timestamp before the first write of a new shard). */
    public synchronized BsonTimestamp latest() {
        return new BsonTimestamp(last);
    }

    /**
     * The all-durable point: no oplog entry at or below it can still appear. Just below the oldest reservation in
     * flight, or {@link #latest()} when none is.
     */
    public synchronized BsonTimestamp allDurable() {
        Iterator<Reservation> oldest = inFlight.iterator();
        return new BsonTimestamp(oldest.hasNext() ? oldest.next().first() - 1 : last);
    }

    /**
     * Waits until every write at or below {@code time} is over (mongo/src/mongo/db/s/README.md "Causal consistency in sessions": the read
     * must see every write up to its {@code afterClusterTime}): until no reservation at or below it is in flight. No
     * write at or below {@code time} can start afterwards: the process's clock has seen {@code time} (the request's gossip
     * moved it), so every later write ticks above it — on a single-node shard that is what MongoDB's no-op write achieves.
     *
     * @throws CommandException MaxTimeMSExpired (50) when the writes are not over within {@code timeout}
     */
    public synchronized void awaitDurable(BsonTimestamp time, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (!inFlight.isEmpty() && Long.compareUnsigned(inFlight.iterator().next().first(), time.getValue()) <= 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new CommandException(ErrorCode.MaxTimeMSExpired, "the writes up to afterClusterTime " + time
                            + " did not finish within " + timeout.toMillis() + " ms");
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandException(ErrorCode.MaxTimeMSExpired, "interrupted while waiting for afterClusterTime " + time, e);
        }
    }

    /** How many reservations are in flight (a diagnostic: zero whenever no write is running). */
    public synchronized int inFlight() {
        return inFlight.size();
    }

    private synchronized void release(Reservation reservation) {
        if (inFlight.remove(reservation)) {
            notifyAll(); // readers waiting in awaitDurable
        }
    }

    /**
     * Cluster times {@code [first, first + count)} handed out for one transaction's oplog entries. Identity
     * matters: two reservations are never equal.
     */
    public final class Reservation {
        private final long first;
        private final int count;

        private Reservation(long first, int count) {
            this.first = first;
            this.count = count;
        }

        /** The first time, as a Timestamp's 64-bit value. */
        public long first() {
            return first;
        }

        /** How many consecutive times, at least 1. */
        public int count() {
            return count;
        }

        /**
         * Ends the reservation: its transaction committed or rolled back, so its times no longer hold back the
         * all-durable point. Idempotent.
         */
        public void release() {
            OplogTimeReservations.this.release(this);
        }

        @Override
        public String toString() {
            return "Reservation[" + new BsonTimestamp(first) + " x" + count + "]";
        }
    }
}
