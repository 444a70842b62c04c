package dev.shardstore.shard.storage;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.session.LogicalSessionId;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The shard's retryable-write history (mongo/src/mongo/db/s/README.md "The transactions table", "Retryable writes"; Flyway
 * {@code V6__retryable_writes.sql}): the {@code transactions} table (MongoDB's {@code config.transactions}: {@code _id}
 * = lsid, {@code txnNum}, {@code lastWriteOpTime}, {@code lastWriteDate}, {@code state}) and the session columns of
 * the oplog ({@code lsid}, {@code txnNumber}, {@code stmtId}, {@code prevOpTime}, and findAndModify's pre-image).
 * {@link #record} runs inside the statement's {@link WriteUnitOfWork}, so a write, its entry's session fields and the
 * session's row commit or roll back together. Times are a Timestamp's 64-bit value; 0 means none.
 */
@Repository
public class SessionHistory {
    /** The {@code state} of a committed multi-document transaction's row (MongoDB's {@code config.transactions} states). */
    private static final String COMMITTED = "committed";

    private final JdbcClient jdbc;

    public SessionHistory(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * A session's {@code transactions} row.
     *
     * @param txnNum          the session's newest transaction number with a write on this shard
     * @param lastWriteOpTime the time of its newest oplog entry
     * @param committedTransaction whether {@code txnNum} was a multi-document transaction that committed here (state
     *                        {@code committed}), not a retryable write
     */
    public record TransactionRecord(long txnNum, long lastWriteOpTime, boolean committedTransaction) {}

    /**
     * An executed statement as its oplog entry shows it.
     *
     * @param opTime   the entry's time
     * @param op       insert, update or delete
     * @param o        the inserted document or the post-image; null for a delete
     * @param preImage findAndModify's document before the change; null otherwise
     */
    public record ExecutedStatement(long opTime, OplogEntry.Op op, @Nullable BsonDocument o, @Nullable BsonDocument preImage) {}

    /**
     * What this shard knows of one transaction number of a session.
     *
     * @param executed   the statements found, by stmtId
     * @param complete   whether the chain from the row's {@code lastWriteOpTime} through every {@code prevOpTime} is whole;
     *                   when not (oplog truncated), a statement not in {@code executed} may still have run
     * @param lastOpTime the session's last write in this transaction number, 0 for none
     */
    public record Transaction(Map<Integer, ExecutedStatement> executed, boolean complete, long lastOpTime) {
        /** A transaction number with no write yet. */
        public static final Transaction NEW = new Transaction(Map.of(), true, 0);
    }

    /** The session's {@code transactions} row, if it has one. */
    public Optional<TransactionRecord> find(LogicalSessionId lsid) {
        return jdbc.sql("SELECT txn_num, last_write_op_time, state FROM transactions WHERE lsid = ?")
                .param(key(lsid))
                .query((rs, i) -> new TransactionRecord(rs.getLong(1), Oplog.tsOf(rs.getLong(2)), COMMITTED.equals(rs.getString(3))))
                .optional();
    }

    /**
     * The history of {@code record}'s transaction number, read from the oplog by walking the chain from the row's
     * {@code lastWriteOpTime} through each entry's {@code prevOpTime} (one primary-key lookup per entry, in one
     * recursive query), as MongoDB does. The chain ends at an entry without a previous one (complete) or where the
     * oplog was truncated (incomplete: truncation removes the oldest entries, so what is left is the newest part of
     * the chain). No index on the session columns is needed, so an ordinary retryable write pays for none
     * ({@code V7__oplog_session_chain.sql}).
     */
    public Transaction load(LogicalSessionId lsid, TransactionRecord record) {
        Map<Integer, ExecutedStatement> executed = new HashMap<>();
        boolean[] reachedFirst = {false}; // whether the oldest entry found had no previous one
        byte[] key = key(lsid);
        jdbc.sql("WITH RECURSIVE chain AS ("
                        + " SELECT ts_key, op, o, pre_image, stmt_id, prev_op_time FROM oplog"
                        + "  WHERE ts_key = ? AND lsid = ? AND txn_number = ?"
                        + " UNION ALL"
                        + " SELECT e.ts_key, e.op, e.o, e.pre_image, e.stmt_id, e.prev_op_time FROM oplog e JOIN chain c"
                        + "  ON e.ts_key = c.prev_op_time AND e.ts_key < c.ts_key WHERE e.lsid = ? AND e.txn_number = ?)"
                        + " SELECT ts_key, op, o, pre_image, stmt_id, prev_op_time FROM chain ORDER BY ts_key DESC")
                .param(Oplog.storedTs(record.lastWriteOpTime())).param(key).param(record.txnNum()).param(key).param(record.txnNum())
                .query(rs -> {
                    long ts = Oplog.tsOf(rs.getLong(1));
                    byte[] o = rs.getBytes(3);
                    byte[] pre = rs.getBytes(4);
                    reachedFirst[0] = rs.getObject(6) == null;
                    executed.put(rs.getInt(5), new ExecutedStatement(ts, OplogEntry.Op.of(rs.getString(2).charAt(0)),
                            o == null ? null : BsonBytes.decode(o), pre == null ? null : BsonBytes.decode(pre)));
                });
        return new Transaction(Map.copyOf(executed), record.lastWriteOpTime() == 0 || reachedFirst[0],
                record.lastWriteOpTime());
    }

    /**
     * Makes the newest entry that {@code statement}'s unit wrote the session's last write in its {@code transactions}
     * row. Runs inside the unit that wrote them, just before it commits; the entries already carry the statement's
     * session fields, written with them ({@link Oplog#changeStatement}). A unit that wrote nothing for the statement
     * records nothing (a no-op statement leaves no history, and a retry runs it again, as in MongoDB).
     *
     * @param writes what each of the unit's changes wrote for the statement, by reservation
     * @throws PartialBatchException when an insert batch's unit did not write each of its statements exactly once
     */
    void record(RetryableStatement statement, List<OplogTimeReservations.Reservation> reservations,
            Map<OplogTimeReservations.Reservation, WriteUnitOfWork.StatementWrite> writes) {
        int[] batch = statement.batch();
        for (OplogTimeReservations.Reservation r : reservations) {
            WriteUnitOfWork.StatementWrite written = writes.get(r);
            if (written == null) {
                continue;
            }
            if (batch != null && (written.count() != batch.length || r.count() != batch.length || statement.opTime() != 0)) {
                throw new PartialBatchException("an insert batch of " + batch.length + " statements wrote " + written.count() + " of them");
            }
            lastWrite(statement.lsidKey(), statement.txnNumber(), written.newestStored());
            statement.wrote(Oplog.tsOf(written.newestStored()));
        }
    }

    /**
     * Makes the entry at stored time {@code storedTs} the last write of session {@code lsid} ({@link #key}) in its
     * {@code transactions} row, for transaction number {@code txnNumber}, creating the row when the session has none.
     */
    void lastWrite(byte[] lsid, long txnNumber, long storedTs) {
        jdbc.sql("INSERT INTO transactions (lsid, txn_num, last_write_op_time, last_write_date) VALUES (?, ?, ?, now())"
                        + " ON CONFLICT (lsid) DO UPDATE SET txn_num = excluded.txn_num, last_write_op_time = excluded.last_write_op_time,"
                        + " last_write_date = excluded.last_write_date, state = NULL")
                .param(lsid).param(txnNumber).param(storedTs).update();
    }

    /**
     * Records in session {@code lsid}'s ({@link #key}) {@code transactions} row that its multi-document transaction
     * {@code txnNumber} committed here, its newest oplog entry at stored time {@code storedTs}; runs in that
     * transaction, just before it commits.
     */
    void committedTransaction(byte[] lsid, long txnNumber, long storedTs) {
        jdbc.sql("INSERT INTO transactions (lsid, txn_num, last_write_op_time, last_write_date, state) VALUES (?, ?, ?, now(), ?)"
                        + " ON CONFLICT (lsid) DO UPDATE SET txn_num = excluded.txn_num, last_write_op_time = excluded.last_write_op_time,"
                        + " last_write_date = excluded.last_write_date, state = excluded.state")
                .param(lsid).param(txnNumber).param(storedTs).param(COMMITTED).update();
    }

    /**
     * Thrown (rolling its unit back) when a unit of an insert batch ({@link RetryableStatement#insertBatch}) wrote some
     * of the batch's documents but not all, or in more than one unit: the statement ids could not be told apart, so the
     * caller runs the statements one by one instead. A unit that wrote none of them records nothing and commits.
     */
    public static final class PartialBatchException extends RuntimeException {
        PartialBatchException(String message) {
            super(message, null, false, false);
        }
    }

    /** The sessions whose {@code transactions} row was last written before {@code cutoff} (reap candidates). */
    public List<LogicalSessionId> idleSince(Instant cutoff) {
        return jdbc.sql("SELECT lsid FROM transactions WHERE last_write_date < ?").param(Timestamp.from(cutoff))
                .query((rs, i) -> LogicalSessionId.parse(BsonBytes.decode(rs.getBytes(1)), "lsid")).list();
    }

    /**
     * Deletes the session's {@code transactions} row if it was still last written before {@code cutoff} (a write since
     * then keeps it); whether it was deleted. A retry of its statements is then no longer recognised, as in MongoDB once
     * the session expired.
     */
    public boolean reap(LogicalSessionId lsid, Instant cutoff) {
        return jdbc.sql("DELETE FROM transactions WHERE lsid = ? AND last_write_date < ?").param(key(lsid)).param(Timestamp.from(cutoff)).update() == 1;
    }

    /** The stored key of a session (the {@code lsid} columns): the BSON of {@code {id, uid?}}. */
    static byte[] key(LogicalSessionId lsid) {
        return BsonBytes.encode(lsid.toBson());
    }
}
