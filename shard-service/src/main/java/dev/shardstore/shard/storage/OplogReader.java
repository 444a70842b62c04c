package dev.shardstore.shard.storage;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.KeyRange;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Reads the oplog the way chunk migration's {@code _transferMods} and resharding's oplog fetcher do: the entries
 * of one collection after a given time, optionally only those of documents in a shard key range, in time order,
 * a batch at a time, and never past the all-durable point (docs/architecture.md "Shard storage and the oplog"; mongo/src/mongo/db/s/README.md "Migrations").
 *
 * <p><b>Why a reader never misses an entry.</b> Each {@link #read} first takes the all-durable point
 * ({@link OplogTimeReservations#allDurable()}), then selects entries with {@code after < ts <= point}. Every time at or below
 * the point belongs to a transaction that had committed or rolled back before the point was taken, so the select,
 * which starts later, sees each of those entries that exists, and no entry at or below the point can appear
 * afterwards. The batch therefore holds every entry in {@code (after, resumeAfter]}, and the next read starts
 * after {@link Batch#resumeAfter()}: consecutive reads cover the oplog without gaps or repeats, however the
 * writers' commits interleave. A reader that instead remembered "the last ts I saw" and read everything above it
 * would skip an entry whose transaction reserved an earlier time but committed later.
 *
 * <p><b>History and retention.</b> {@link OplogRetention} deletes old entries; a reader that must not lose history
 * holds a {@link Pin} at the time it resumes from (a migration pins its start), and truncation never deletes an
 * entry above a pinned time. A read or pin that asks for history already deleted fails with CappedPositionLost
 * (136), never with a silently shortened answer. Before anything is truncated in this process, the history before
 * the oldest entry present at startup counts as deleted.
 *
 * <p>Thread-safe.
 */
@Repository
public class OplogReader {
    private static final String COLUMNS = "ts_key, op, ns, ui, o2, shard_key, pre_shard_key, from_migrate, o";
    private static final int TRUNCATE_BATCH_ROWS = 10_000;

    private final JdbcClient jdbc;
    private final OplogTimeReservations clock;
    private final Set<Pin> pins = new HashSet<>();
    /** Entries at or below this time (a Timestamp value, unsigned) may have been deleted. Guarded by this. */
    private long truncatedThrough;

    public OplogReader(JdbcClient jdbc, OplogTimeReservations clock) {
        this.jdbc = jdbc;
        this.clock = clock;
        Long oldest = jdbc.sql("SELECT min(ts_key) FROM oplog").query(Long.class).optional().orElse(null);
        this.truncatedThrough = oldest == null ? 0 : Oplog.tsOf(oldest) - 1;
    }

    /**
     * Waits until every oplog time handed out so far is durable: each write that reserved one has committed or rolled
     * back, a prepared transaction's included (its reservation lasts until its decision). A migration's donor waits so
     * once its critical section blocks new writes, before the recipient's last catch-up, so that no entry of the range
     * can appear after it.
     *
     * @throws dev.shardstore.contracts.error.CommandException MaxTimeMSExpired (50) after {@code timeout}
     */
    public void awaitEveryReservation(Duration timeout) {
        clock.awaitDurable(clock.latest(), timeout);
    }

    /** The all-durable point: no entry at or below it can still appear ({@link OplogTimeReservations#allDurable()}). */
    public BsonTimestamp allDurable() {
        return clock.allDurable();
    }

    /**
     * The next entries of collection {@code ui} after {@code after}, up to the all-durable point, in time order.
     *
     * @param after the time to read after: a previous batch's {@link Batch#resumeAfter()}, or a time taken from
     *              {@link #allDurable()} when reading starts
     * @param range only entries of documents whose shard key is in this range (an update also when its key before
     *              the update was); null for every entry, commands included
     * @param limit most entries in the batch, at least 1
     * @throws CommandException BadValue naming {@code limit}; CappedPositionLost (136) when entries after
     *                          {@code after} may already have been deleted by retention
     */
    public Batch read(UUID ui, BsonTimestamp after, @Nullable KeyRange range, int limit) {
        return read(ui, after, range, limit, clock.allDurable());
    }

    /** {@link #read} up to {@code upTo}, which the caller took from {@link #allDurable()}; package-private for tests. */
    Batch read(UUID ui, BsonTimestamp after, @Nullable KeyRange range, int limit, BsonTimestamp upTo) {
        Objects.requireNonNull(ui, "ui");
        if (limit < 1) {
            throw new CommandException(ErrorCode.BadValue, "oplog read 'limit' must be at least 1, was " + limit);
        }
        requireHistory(after.getValue());
        if (Long.compareUnsigned(after.getValue(), upTo.getValue()) >= 0) {
            return new Batch(List.of(), after);
        }
        String sql = "SELECT " + COLUMNS + " FROM oplog WHERE " + between(range) + " ORDER BY ts_key LIMIT ?";
        List<OplogEntry> entries = bindBetween(sql, ui, after, upTo, range).param(limit).query((rs, i) -> entry(rs)).list();
        BsonTimestamp resumeAfter = entries.size() == limit ? entries.getLast().ts() : upTo;
        return new Batch(entries, resumeAfter);
    }

    /**
     * How many client changes of collection {@code ui} to documents of {@code range} follow {@code after}, up to the
     * all-durable point, counting at most {@code limit}: the entries {@link #read} would return but for commands and the
     * writes of migration and range deletion ({@code fromMigrate}). No entry is read out, so a migration's donor can ask
     * at every status poll how much its recipient has left to pull (its check before the critical section).
     *
     * @throws CommandException BadValue naming {@code limit}; CappedPositionLost (136) as {@link #read}
     */
    public int countClientChanges(UUID ui, BsonTimestamp after, KeyRange range, int limit) {
        Objects.requireNonNull(ui, "ui");
        if (limit < 1) {
            throw new CommandException(ErrorCode.BadValue, "oplog count 'limit' must be at least 1, was " + limit);
        }
        requireHistory(after.getValue());
        BsonTimestamp upTo = clock.allDurable();
        if (Long.compareUnsigned(after.getValue(), upTo.getValue()) >= 0) {
            return 0;
        }
        String sql = "SELECT count(*) FROM (SELECT 1 FROM oplog WHERE " + between(range)
                + " AND NOT from_migrate AND o2 IS NOT NULL LIMIT ?) changes";
        return bindBetween(sql, ui, after, upTo, range).param(limit).query(Integer.class).single();
    }

    /** The condition of {@link #read}'s entries: of one collection, in {@code (after, upTo]}, of {@code range} if any. */
    private static String between(@Nullable KeyRange range) {
        return "ui = ? AND ts_key > ? AND ts_key <= ?"
                + (range == null ? "" : " AND ((shard_key >= ? AND shard_key < ?) OR (pre_shard_key >= ? AND pre_shard_key < ?))");
    }

    /** {@code sql} with the parameters of its {@link #between} condition bound, in order. */
    private JdbcClient.StatementSpec bindBetween(String sql, UUID ui, BsonTimestamp after, BsonTimestamp upTo, @Nullable KeyRange range) {
        JdbcClient.StatementSpec statement = jdbc.sql(sql)
                .param(ui).param(Oplog.storedTs(after.getValue())).param(Oplog.storedTs(upTo.getValue()));
        if (range != null) {
            statement = statement.param(range.min()).param(range.max()).param(range.min()).param(range.max());
        }
        return statement;
    }

    /**
     * Pins the history after {@code after}: retention deletes no entry above the pin's time until it is closed.
     * A reader that will select by shard key range loads the collection's filtering metadata before it pins, so
     * that every write after its start records the shard key ({@link DocumentKeys}).
     *
     * @throws CommandException CappedPositionLost (136) when entries after {@code after} may already be deleted
     */
    public synchronized Pin pin(BsonTimestamp after) {
        requireHistory(after.getValue());
        Pin pin = new Pin(after.getValue());
        pins.add(pin);
        return pin;
    }

    /**
     * Whether every entry after {@code at} is still kept and will be until a pin closes: a reader pinned at or before
     * {@code at} (retention deletes nothing above a pin) and nothing after it deleted yet. A snapshot read at {@code at}
     * needs exactly those entries, so it may be older than the history window.
     */
    public synchronized boolean holdsHistoryAfter(BsonTimestamp at) {
        return kept(at.getValue()) && pins.stream().anyMatch(pin -> Long.compareUnsigned(pin.after, at.getValue()) <= 0);
    }

    /**
     * Deletes the entries older than {@code before}, but none above a pinned time or the all-durable point, and
     * never the newest entry (the clock restarts above it). Deletes in batches, each its own statement.
     *
     * @return how many entries were deleted
     */
    int truncateBefore(BsonTimestamp before) {
        long bound;
        synchronized (this) {
            bound = before.getValue() == 0 ? 0 : before.getValue() - 1;
            for (Pin pin : pins) {
                bound = minUnsigned(bound, pin.after);
            }
            bound = minUnsigned(bound, clock.allDurable().getValue());
            if (Long.compareUnsigned(bound, truncatedThrough) <= 0) {
                return 0;
            }
            // from here on a read or pin below the bound fails, so deleting below it cannot shorten an answer
            truncatedThrough = bound;
        }
        int deleted = 0;
        int batch;
        do {
            batch = jdbc.sql("DELETE FROM oplog WHERE ts_key IN (SELECT ts_key FROM oplog WHERE ts_key <= ?"
                            + " AND ts_key < (SELECT max(ts_key) FROM oplog) ORDER BY ts_key LIMIT ?)")
                    .param(Oplog.storedTs(bound)).param(TRUNCATE_BATCH_ROWS)
                    .update();
            deleted += batch;
        } while (batch == TRUNCATE_BATCH_ROWS);
        return deleted;
    }

    /** Whether no entry after {@code after} has been deleted. */
    private synchronized boolean kept(long after) {
        return Long.compareUnsigned(after, truncatedThrough) >= 0;
    }

    private synchronized void requireHistory(long after) {
        if (!kept(after)) {
            throw new CommandException(ErrorCode.CappedPositionLost, "oplog entries after " + new BsonTimestamp(after)
                    + " are no longer kept: the oplog was truncated through " + new BsonTimestamp(truncatedThrough));
        }
    }

    private synchronized void move(Pin pin, long after) {
        if (pins.contains(pin) && Long.compareUnsigned(after, pin.after) > 0) {
            pin.after = after;
        }
    }

    private synchronized void release(Pin pin) {
        pins.remove(pin);
    }

    private static long minUnsigned(long a, long b) {
        return Long.compareUnsigned(a, b) <= 0 ? a : b;
    }

    private static OplogEntry entry(ResultSet rs) throws SQLException {
        byte[] o2 = rs.getBytes("o2");
        byte[] o = rs.getBytes("o");
        return new OplogEntry(new BsonTimestamp(Oplog.tsOf(rs.getLong("ts_key"))), OplogEntry.Op.of(rs.getString("op").charAt(0)),
                rs.getString("ns"), rs.getObject("ui", UUID.class), o2 == null ? null : BsonBytes.decode(o2),
                rs.getBytes("shard_key"), rs.getBytes("pre_shard_key"), rs.getBoolean("from_migrate"),
                o == null ? null : BsonBytes.decode(o));
    }

    /**
     * One batch of a read.
     *
     * @param entries     the entries in {@code (after, resumeAfter]}, in time order
     * @param resumeAfter where the next read starts: the last entry's time when the batch is full, else the
     *                    all-durable point the read went up to
     */
    public record Batch(List<OplogEntry> entries, BsonTimestamp resumeAfter) {
        public Batch {
            entries = List.copyOf(entries);
            Objects.requireNonNull(resumeAfter, "resumeAfter");
        }
    }

    /**
     * A reader's hold on the oplog's history after its time. Identity matters: two pins are never equal.
     */
    public final class Pin implements AutoCloseable {
        private long after;

        private Pin(long after) {
            this.after = after;
        }

        /**
         * Moves the pin forward to the time the reader now resumes from (its last {@link Batch#resumeAfter()});
         * an earlier time leaves it where it is.
         */
        public void advance(BsonTimestamp after) {
            move(this, after.getValue());
        }

        /** Releases the history the pin held. Idempotent. */
        @Override
        public void close() {
            release(this);
        }
    }
}
