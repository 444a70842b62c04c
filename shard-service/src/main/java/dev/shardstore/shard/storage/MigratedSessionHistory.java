package dev.shardstore.shard.storage;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.sharding.KeyRange;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Retryable-write history that moves with its chunk (mongo/src/mongo/db/s/README.md "Retryable writes", MongoDB's session migration with
 * {@code _getNextSessionMods}): the donor hands out the session entries of the documents in the moving range, the
 * recipient writes them as its own, so a statement resent after the migration, answered by the recipient, is still
 * recognised and not applied twice.
 *
 * <p>Donor side, {@link #read}: oplog entries of the collection with a session whose shard key is in the range and whose
 * transaction number is the session's current one (older numbers can no longer be retried: TransactionTooOld), in time
 * order. Entry shape: {@code {ts, op, o2, shardKey: BinData, o?, preImage?, lsid, txnNumber, stmtId}}.
 *
 * <p>Recipient side, {@link #write}: each entry becomes an oplog entry of this shard ({@code fromMigrate}, so no later
 * migration transfers it as a change) chained to the session's previous entry here, and the session's
 * {@code transactions} row moves to it. An entry of an older transaction number than this shard's row, or of a
 * statement this shard already has, is skipped, so importing twice changes nothing. Runs inside a
 * {@link WriteUnitOfWork#writeFromMigrate} unit.
 */
@Repository
public class MigratedSessionHistory {
    /** {@link #read}'s statement; parameters: ui, the range's min and max KeyStrings, the stored time after, the limit. */
    private static final String READ = "WITH RECURSIVE chain AS ("
            + " SELECT o.ts_key, o.op, o.ui, o.o2, o.shard_key, o.o, o.pre_image, o.lsid, o.txn_number, o.stmt_id, o.prev_op_time"
            + "  FROM transactions t JOIN oplog o ON o.ts_key = t.last_write_op_time WHERE o.lsid = t.lsid AND o.txn_number = t.txn_num"
            + " UNION ALL"
            + " SELECT e.ts_key, e.op, e.ui, e.o2, e.shard_key, e.o, e.pre_image, e.lsid, e.txn_number, e.stmt_id, e.prev_op_time"
            + "  FROM chain c JOIN oplog e ON e.ts_key = CASE WHEN c.stmt_id IS NULL THEN c.ts_key - 1 ELSE c.prev_op_time END"
            + "  WHERE e.lsid = c.lsid AND e.txn_number = c.txn_number AND e.ts_key < c.ts_key)"
            + " SELECT ts_key, op, o2, shard_key, o, pre_image, lsid, txn_number, stmt_id FROM chain"
            + " WHERE ui = ? AND op IN ('i', 'u', 'd') AND shard_key >= ? AND shard_key < ? AND ts_key > ?"
            + " ORDER BY ts_key LIMIT ?";

    private final JdbcClient jdbc;
    private final WriteUnitOfWork units;
    private final SessionHistory history;

    public MigratedSessionHistory(JdbcClient jdbc, WriteUnitOfWork units, SessionHistory history) {
        this.jdbc = jdbc;
        this.units = units;
        this.history = history;
    }

    /**
     * A page of the range's session entries after {@code after} (a Timestamp's value; 0 for the start), oldest first.
     * Found as MongoDB's session migration source finds them: from each session's {@code transactions} row, walking
     * back the chain of its current transaction number with one primary-key lookup per entry (a retryable write's
     * entry points at the previous one with {@code prev_op_time}; a committed transaction's entries, stamped in one
     * reservation, sit at consecutive times), then keeping those of the collection's documents in the range. Reading
     * the range's oplog entries instead scanned every entry of the range for the few that have a session (issue 37:
     * 86 ms of a 100,000-document move's critical section). What retention truncated ends a chain early; that is the
     * oldest part, which the scan would not have found either.
     */
    public List<BsonDocument> read(UUID ui, KeyRange range, long after, int limit) {
        return jdbc.sql(READ)
                .param(ui).param(range.min()).param(range.max()).param(Oplog.storedTs(after)).param(limit)
                .query((rs, n) -> {
                    BsonDocument entry = new BsonDocument("ts", new BsonTimestamp(Oplog.tsOf(rs.getLong(1))))
                            .append("op", new BsonString(rs.getString(2)))
                            .append("o2", BsonBytes.decode(rs.getBytes(3)))
                            .append("shardKey", new BsonBinary(rs.getBytes(4)));
                    optional(rs.getBytes(5)).ifPresent(o -> entry.append("o", o));
                    optional(rs.getBytes(6)).ifPresent(pre -> entry.append("preImage", pre));
                    return entry.append("lsid", BsonBytes.decode(rs.getBytes(7)))
                            .append("txnNumber", new BsonInt64(rs.getLong(8)))
                            .append("stmtId", new BsonInt32(rs.getInt(9)));
                }).list();
    }

    /**
     * Writes {@code entries} ({@link #read}'s shape) as this shard's history of collection {@code ui} ({@code ns}).
     *
     * @return how many were written (the others were older or already here)
     * @throws CommandException BadValue naming the field of a malformed entry
     */
    public int write(OperationContext opCtx, String ns, UUID ui, List<BsonDocument> entries) {
        int written = 0;
        Map<SessionTxn, Set<Integer>> statements = new HashMap<>(); // per session and txnNumber: the stmtIds here
        for (BsonDocument entry : entries) {
            LogicalSessionId lsid = LogicalSessionId.parse(Objects.requireNonNull(entry.get("lsid"), "a retryable write's history entry names its session"), "lsid");
            long txnNumber = number(entry, "txnNumber");
            int stmtId = (int) number(entry, "stmtId");
            Optional<SessionHistory.TransactionRecord> row = history.find(lsid);
            if (row.isPresent() && (row.get().txnNum() > txnNumber || row.get().txnNum() == txnNumber
                    && !statements.computeIfAbsent(new SessionTxn(lsid, txnNumber),
                            t -> new HashSet<>(history.load(lsid, row.get()).executed().keySet())).add(stmtId))) {
                continue;
            }
            long prev = row.isPresent() && row.get().txnNum() == txnNumber ? row.get().lastWriteOpTime() : 0;
            long stored = Oplog.storedTs(units.reserve(opCtx, 1).first());
            byte[] key = SessionHistory.key(lsid);
            jdbc.sql("INSERT INTO oplog (ts_key, op, ns, ui, o2, shard_key, from_migrate, o, lsid, txn_number, stmt_id, prev_op_time, pre_image)"
                            + " VALUES (?, ?, ?, ?, ?, ?, true, ?, ?, ?, ?, ?, ?)")
                    .param(stored).param(op(entry)).param(ns).param(ui).param(BsonBytes.encode(entry.getDocument("o2")))
                    .param(entry.getBinary("shardKey").getData()).param(bytesOf(entry.get("o"))).param(key).param(txnNumber).param(stmtId)
                    .param(prev == 0 ? null : Oplog.storedTs(prev)).param(bytesOf(entry.get("preImage")))
                    .update();
            history.lastWrite(key, txnNumber, stored);
            written++;
        }
        return written;
    }

    /** A session's transaction number. */
    private record SessionTxn(LogicalSessionId lsid, long txnNumber) {}

    private static String op(BsonDocument entry) {
        String op = entry.isString("op") ? entry.getString("op").getValue() : "";
        if (!op.equals("i") && !op.equals("u") && !op.equals("d")) {
            throw new CommandException(ErrorCode.BadValue, "a migrated session entry's 'op' must be i, u or d, not '" + op + "'");
        }
        return op;
    }

    private static long number(BsonDocument entry, String field) {
        if (!entry.isNumber(field)) {
            throw new CommandException(ErrorCode.BadValue, "a migrated session entry needs a numeric '" + field + "'");
        }
        return entry.getNumber(field).longValue();
    }

    private static byte @Nullable [] bytesOf(@Nullable BsonValue value) {
        return value == null || !value.isDocument() ? null : BsonBytes.encode(value.asDocument());
    }

    private static Optional<BsonDocument> optional(byte @Nullable [] bytes) {
        return Optional.ofNullable(bytes).map(BsonBytes::decode);
    }
}
