package dev.shardstore.shard.storage;

import dev.shardstore.contracts.session.LogicalSessionId;
import java.util.Objects;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * One statement of a retryable write while it runs (mongo/src/mongo/db/s/README.md "Retryable writes"): the {@link WriteUnitOfWork}s opened
 * under {@link WriteUnitOfWork#asStatement} mark their oplog entries with these session fields and upsert the session's
 * {@code transactions} row before they commit ({@link SessionHistory#record}). Mutable, confined to the thread that
 * runs the statement.
 */
public final class RetryableStatement {
    private final LogicalSessionId lsid;
    /** {@link SessionHistory#key} of {@link #lsid}, encoded once: every change of the statement and its record use it. */
    private final byte[] lsidKey;
    private final long txnNumber;
    private final int stmtId;
    private final int @Nullable [] batch;
    private long prevOpTime;
    private long opTime;
    private @Nullable BsonDocument preImage;

    /**
     * @param prevOpTime the session's last write of {@code txnNumber} (a Timestamp's value), 0 for none
     */
    public RetryableStatement(LogicalSessionId lsid, long txnNumber, int stmtId, long prevOpTime) {
        this.lsid = Objects.requireNonNull(lsid, "lsid");
        this.lsidKey = SessionHistory.key(lsid);
        this.txnNumber = txnNumber;
        this.stmtId = stmtId;
        this.batch = null;
        this.prevOpTime = prevOpTime;
    }

    /**
     * The statements {@code stmtIds} of an insert run as one batch in one unit: the unit's i-th oplog entry is the
     * document of statement {@code stmtIds[i]}, and the unit must write every one of them, or none
     * ({@link SessionHistory.PartialBatchException}).
     *
     * @param prevOpTime the session's last write of {@code txnNumber} (a Timestamp's value), 0 for none
     */
    public static RetryableStatement insertBatch(LogicalSessionId lsid, long txnNumber, int[] stmtIds, long prevOpTime) {
        return new RetryableStatement(lsid, txnNumber, stmtIds, prevOpTime);
    }

    private RetryableStatement(LogicalSessionId lsid, long txnNumber, int[] stmtIds, long prevOpTime) {
        this.lsid = Objects.requireNonNull(lsid, "lsid");
        this.lsidKey = SessionHistory.key(lsid);
        if (stmtIds.length == 0) {
            throw new IllegalArgumentException("a batch has at least one statement");
        }
        this.txnNumber = txnNumber;
        this.stmtId = stmtIds[0];
        this.batch = stmtIds.clone();
        this.prevOpTime = prevOpTime;
    }

    /** The statement ids of an insert batch ({@link #insertBatch}), null for one statement. */
    int @Nullable [] batch() {
        return batch == null ? null : batch.clone();
    }

    public LogicalSessionId lsid() {
        return lsid;
    }

    /** The session's stored key (the {@code lsid} columns); not to be modified. */
    byte[] lsidKey() {
        return lsidKey;
    }

    public long txnNumber() {
        return txnNumber;
    }

    public int stmtId() {
        return stmtId;
    }

    long prevOpTime() {
        return prevOpTime;
    }

    /** The time of the oplog entry the statement wrote (a Timestamp's value), 0 while none committed. */
    public long opTime() {
        return opTime;
    }

    void wrote(long opTime) {
        this.opTime = opTime;
        this.prevOpTime = opTime;
    }

    /** findAndModify's document before its change, kept with the entry so a retry can return it. */
    void preImage(BsonDocument document) {
        this.preImage = document;
    }

    @Nullable BsonDocument preImage() {
        return preImage;
    }
}
