package dev.shardstore.shard.write;

import dev.shardstore.contracts.bson.Replies;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntFunction;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;

/**
 * Accumulates the reply of a write command: {@code n}, for updates {@code nModified} and
 * {@code upserted: [{index, _id}]}, and {@code writeErrors} ordered by index (present only when not
 * empty, as in MongoDB's replies).
 */
public final class WriteResult {
    private long n;
    private long nModified;
    private final List<BsonDocument> upserted = new ArrayList<>();
    private final List<WriteError> errors = new ArrayList<>();

    /**
     * Runs {@code count} statements in order and collects their outcomes; an ordered batch stops at
     * the first statement that fails (MongoDB's {@code ordered}).
     */
    static WriteResult ofStatements(int count, boolean ordered, IntFunction<StatementOutcome> statement) {
        WriteResult result = new WriteResult();
        for (int i = 0; i < count; i++) {
            StatementOutcome outcome = statement.apply(i);
            result.addN(outcome.n());
            result.addModified(outcome.nModified());
            if (outcome.upsertedId() != null) {
                result.addUpserted(i, outcome.upsertedId());
            }
            if (outcome.error() != null) {
                result.addError(new WriteError(i, outcome.error()));
                if (ordered) {
                    break;
                }
            }
        }
        return result;
    }

    /**
     * This result of one statement (a one-document insert) as its outcome: its counts and its first error.
     *
     * @throws IllegalStateException when it holds upserts (an insert never does)
     */
    public StatementOutcome single() {
        if (!upserted.isEmpty()) {
            throw new IllegalStateException("an insert result has no upserts");
        }
        return new StatementOutcome(n, nModified, null, errors.isEmpty() ? null : errors.get(0).error());
    }

    void addN(long count) {
        n += count;
    }

    void addModified(long count) {
        nModified += count;
    }

    /** Records an upsert by statement {@code index}; it also counts towards {@code n}. */
    void addUpserted(int index, BsonValue id) {
        n++;
        upserted.add(new BsonDocument("index", new BsonInt32(index)).append("_id", id));
    }

    void addError(WriteError error) {
        errors.add(error);
    }

    boolean hasErrors() {
        return !errors.isEmpty();
    }

    /** {@code {n, writeErrors?, ok: 1}} for insert and delete. */
    public BsonDocument toReply() {
        return Replies.ok(withErrors(new BsonDocument("n", count(n))));
    }

    /** {@code {n, nModified, upserted?, writeErrors?, ok: 1}} for update. */
    public BsonDocument toUpdateReply() {
        BsonDocument reply = new BsonDocument("n", count(n)).append("nModified", count(nModified));
        if (!upserted.isEmpty()) {
            reply.append("upserted", new BsonArray(upserted));
        }
        return Replies.ok(withErrors(reply));
    }

    private BsonDocument withErrors(BsonDocument reply) {
        if (!errors.isEmpty()) {
            BsonArray array = new BsonArray();
            errors.stream().sorted(Comparator.comparingInt(WriteError::index)).forEach(e -> array.add(e.toBson()));
            reply.append("writeErrors", array);
        }
        return reply;
    }

    /** MongoDB replies with int32 counts; larger counts stay exact as int64. */
    private static BsonValue count(long value) {
        return value <= Integer.MAX_VALUE ? new BsonInt32((int) value) : new BsonInt64(value);
    }
}
