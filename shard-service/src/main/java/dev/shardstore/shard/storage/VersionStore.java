package dev.shardstore.shard.storage;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.shard.OplogProperties;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The version store of snapshot reads (docs/architecture.md "Snapshot reads"): the documents of a collection as they
 * were at a cluster time {@code T}, reconstructed from the oplog, which keeps each update's and delete's pre-image
 * ({@code pre}, Flyway {@code V9}).
 *
 * <p>A read at {@code T} runs once every write at or before {@code T} is durable
 * ({@link OplogTimeReservations#awaitDurable}), in one PostgreSQL snapshot taken after that. The snapshot then holds
 * every change up to {@code T} and perhaps some after it; those are exactly the oplog entries the snapshot sees with a
 * time after {@code T}, since an entry commits with the change it describes. For each document they touch, the first
 * such entry says what the document was at {@code T}: nothing before an insert, the pre-image before an update or a
 * delete ({@link Overlay}). A transaction's entries have one time each but become visible together: a one-shard
 * commit at its newest entry's time, a prepared transaction at the coordinator's commit time, which
 * {@link #recordCommitTime} writes (with the commit, or before {@code COMMIT PREPARED}); they all count as after
 * {@code T} when that time is. A transaction's own entries (provisional times, stored above every real one) are
 * never undone: it reads its own writes.
 *
 * <p>History is kept for {@code minSnapshotHistoryWindowInSeconds} ({@code shardstore.shard.snapshot-history-window},
 * 300 s, or the oplog's retention when shorter): older reads are SnapshotTooOld (239). A chunk migration's writes
 * ({@code fromMigrate}) keep no pre-image. Its clone's and catch-up's inserts after {@code T} on a recipient are
 * undone like any insert: the shard did not hold those documents at {@code T}, and the read's ownership filter, the
 * placement at {@code T} (docs/architecture.md "The historical routing table"), gives their range to the donor then.
 * A donor's range deletion after {@code T} cannot be undone: where it deleted documents this shard owned at {@code T}
 * (a range that moved away after {@code T}, deleted {@code orphanCleanupDelaySecs} later) the read is
 * StaleChunkHistory (183); where the range had moved away before {@code T} the read filters them out anyway.
 */
@Component
public class VersionStore {
    private static final Logger log = LoggerFactory.getLogger(VersionStore.class);

    private final JdbcClient jdbc;
    private final Clock clock;
    private final Duration window;
    private final OplogReader reader;

    @Autowired
    public VersionStore(JdbcClient jdbc, @Value("${shardstore.shard.snapshot-history-window:300s}") Duration window, OplogProperties oplog,
            OplogReader reader) {
        this(jdbc, window, oplog, reader, Clock.systemUTC());
    }

    VersionStore(JdbcClient jdbc, Duration window, OplogProperties oplog, OplogReader reader, Clock clock) {
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("shardstore.shard.snapshot-history-window must be positive, was " + window);
        }
        this.jdbc = jdbc;
        this.reader = reader;
        // the oplog's retention deletes older entries, and with them the history a read needs
        this.window = window.compareTo(oplog.retention()) <= 0 ? window : oplog.retention();
        this.clock = clock;
    }

    /**
     * What a snapshot read at one time sees differently from the current documents of one collection: for each
     * document changed after that time, its version then (empty: it did not exist).
     *
     * @param versions by {@code _id} KeyString
     */
    public record Overlay(Map<ByteBuffer, Optional<StoredDocument>> versions) {
        public Overlay {
            versions = Collections.unmodifiableMap(new HashMap<>(versions));
        }

        /** Whether the document with KeyString {@code id} changed after the read's time. */
        public boolean changed(byte[] id) {
            return versions.containsKey(ByteBuffer.wrap(id));
        }

        /** The documents as they were at the read's time, of those changed after it that existed then. */
        public List<StoredDocument> present() {
            return versions.values().stream().flatMap(Optional::stream).toList();
        }

        public boolean isEmpty() {
            return versions.isEmpty();
        }
    }

    /**
     * Checks that history reaches back to {@code at}: the window, or the oplog's retention when that is shorter (it
     * deletes the entries older than it, by the wall clock, as the window counts). A time before the shard's first
     * entry is fine: nothing before it was deleted, and the overlay undoes every entry after it. So is an older time
     * that an oplog reader's pin holds the entries after ({@link OplogReader#holdsHistoryAfter}): a resharding donor
     * pins its oplog at its {@code minFetchTimestamp} and serves its clone at the later {@code cloneTimestamp}, which
     * for a large collection runs for longer than the window.
     *
     * @throws CommandException SnapshotTooOld (239) when {@code at} is older than that
     */
    public void checkWindow(BsonTimestamp at) {
        long oldestSeconds = clock.instant().minus(window).getEpochSecond();
        if (Integer.toUnsignedLong(at.getTime()) < oldestSeconds && !reader.holdsHistoryAfter(at)) {
            throw tooOld(at, "older than minSnapshotHistoryWindowInSeconds (" + window.toSeconds() + " s, or the oplog's"
                    + " retention when shorter)");
        }
    }

    /**
     * The overlay of collection {@code c} at {@code at}, read on the current connection (the read's snapshot).
     *
     * @throws CommandException SnapshotTooOld (239) for a change after {@code at} whose entry has no pre-image (written
     *                          before the version store existed); StaleChunkHistory (183) for a migration's write after
     *                          {@code at}
     */
    public Overlay overlay(CollectionInfo c, BsonTimestamp at) {
        return overlay(c, at, null);
    }

    /**
     * The overlay of collection {@code c} at {@code at} for a read whose ownership filter at {@code at} is
     * {@code ownedThen} (by encoded shard key), read on the current connection (the read's snapshot).
     *
     * @param ownedThen whether this shard owned a shard key at {@code at}; null for an unversioned read, which does
     *                  not filter by ownership
     * @throws CommandException SnapshotTooOld (239) for a change after {@code at} whose entry has no pre-image (written
     *                          before the version store existed); StaleChunkHistory (183) for a range deletion after
     *                          {@code at} of a document {@code ownedThen} owns, or whose shard key is not recorded
     */
    public Overlay overlay(CollectionInfo c, BsonTimestamp at, @Nullable Predicate<byte[]> ownedThen) {
        long after = Oplog.storedTs(at.getValue());
        List<Change> changes = new ArrayList<>(jdbc.sql("SELECT o.ts_key, o.op, o.o2, o.pre, o.from_migrate, t.commit_ts, o.shard_key FROM oplog o"
                        + " LEFT JOIN transaction_commit_times t ON o.ts_key >= t.first_ts_key AND o.ts_key < t.first_ts_key + t.entries"
                        + " WHERE o.ui = ?::uuid AND o.ts_key > ? AND o.ts_key < 0 AND o.op <> 'c'")
                .param(c.uuid()).param(after).query(VersionStore::change).list());
        // entries of prepared transactions given times up to `at` whose commit time is after it
        changes.addAll(jdbc.sql("SELECT o.ts_key, o.op, o.o2, o.pre, o.from_migrate, t.commit_ts, o.shard_key FROM transaction_commit_times t"
                        + " JOIN oplog o ON o.ts_key >= t.first_ts_key AND o.ts_key < t.first_ts_key + t.entries"
                        + " WHERE t.commit_ts > ? AND t.first_ts_key <= ? AND o.ts_key <= ? AND o.ui = ?::uuid AND o.op <> 'c'")
                .param(at.getValue()).param(after).param(after).param(c.uuid()).query(VersionStore::change).list());
        changes.removeIf(change -> Long.compareUnsigned(change.visibleAt(), at.getValue()) <= 0);
        changes.sort(Comparator.comparing(Change::visibleAt, Long::compareUnsigned).thenComparing(Change::tsKey));
        Map<ByteBuffer, Optional<StoredDocument>> versions = new HashMap<>();
        for (Change change : changes) {
            if (change.fromMigrate() && change.op() == 'd' && ownedThen != null
                    && (change.shardKey() == null || ownedThen.test(change.shardKey()))) {
                throw new CommandException(ErrorCode.StaleChunkHistory, "documents of " + c.namespace() + " this shard owned at"
                        + " atClusterTime " + at + " were deleted here since, after their range moved to another shard"
                        + " (orphanCleanupDelaySecs passed): read at a later time");
            }
            ByteBuffer id = ByteBuffer.wrap(change.id());
            if (versions.containsKey(id)) {
                continue; // the first change after `at` says what the document was at `at`
            }
            if (change.fromMigrate() || change.op() == 'i') {
                versions.put(id, Optional.empty());
            } else if (change.pre() == null) {
                throw tooOld(at, "a change of " + c.namespace() + " after it was written without the version store's pre-image");
            } else {
                versions.put(id, Optional.of(new StoredDocument(change.id(), change.pre())));
            }
        }
        return new Overlay(versions);
    }

    /**
     * Records that the prepared transaction {@code prepared}'s entries become visible at {@code commitTimestamp}, before
     * its {@code COMMIT PREPARED} (idempotent: a redelivered decision writes nothing new). Nothing for one that wrote
     * nothing.
     */
    void recordCommitTime(PreparedTransaction prepared, long commitTimestamp) {
        OplogTimeReservations.Reservation reservation = prepared.reservation();
        if (reservation != null) {
            recordCommitTime(reservation, commitTimestamp);
        }
    }

    /**
     * Records that the entries of {@code reservation}, one transaction's, all become visible at {@code commitTimestamp}:
     * a transaction commits at one time, though its entries have one time each. A one-shard commit writes it in its
     * own PostgreSQL transaction, at its newest entry's time; a read at a time between its first and its last entry
     * would otherwise see part of it.
     */
    void recordCommitTime(OplogTimeReservations.Reservation reservation, long commitTimestamp) {
        jdbc.sql("INSERT INTO transaction_commit_times (first_ts_key, entries, commit_ts) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
                .param(Oplog.storedTs(reservation.first())).param(reservation.count()).param(commitTimestamp).update();
    }

    /** Deletes the commit times older than the history window. Scheduled every minute. */
    @Scheduled(fixedDelayString = "${shardstore.shard.oplog.truncate-interval:1m}")
    public int trim() {
        long oldest = clock.instant().minus(window).getEpochSecond() << 32;
        int deleted = jdbc.sql("DELETE FROM transaction_commit_times WHERE commit_ts < ?").param(oldest).update();
        if (deleted > 0) {
            log.debug("deleted {} commit times older than the snapshot history window", deleted);
        }
        return deleted;
    }

    private static CommandException tooOld(BsonTimestamp at, String why) {
        return new CommandException(ErrorCode.SnapshotTooOld, "readConcern.atClusterTime " + at + " is too old: " + why);
    }

    /** One oplog entry of a document change, with the time it became visible at. */
    private record Change(long tsKey, char op, byte[] id, byte @Nullable [] pre, boolean fromMigrate, long visibleAt,
            byte @Nullable [] shardKey) {}

    private static Change change(java.sql.ResultSet rs, int row) throws java.sql.SQLException {
        long tsKey = rs.getLong(1);
        char op = rs.getString(2).charAt(0);
        BsonDocument documentKey = BsonBytes.decode(rs.getBytes(3));
        BsonValue id = documentKey.get("_id");
        if (id == null) {
            throw new IllegalStateException("an oplog entry's documentKey without _id: " + documentKey.toJson());
        }
        long commitTs = rs.getLong(6);
        long visibleAt = rs.wasNull() ? Oplog.storedTs(tsKey) : commitTs;
        return new Change(tsKey, op, KeyString.encode(id), rs.getBytes(4), rs.getBoolean(5), visibleAt, rs.getBytes(7));
    }
}
