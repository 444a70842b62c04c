package dev.shardstore.shard.write;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.session.OperationSessionInfo;
import dev.shardstore.contracts.session.StatementIds;
import dev.shardstore.shard.session.SessionCatalog;
import dev.shardstore.shard.storage.RetryableStatement;
import dev.shardstore.shard.storage.SessionHistory;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.shard.transaction.TransactionParticipant;
import dev.shardstore.support.failpoint.FailPoints;
import dev.shardstore.support.operation.OperationContext;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.springframework.stereotype.Component;

/**
 * Runs the statements of {@code insert}, {@code update}, {@code delete} and {@code findAndModify}, as retryable writes
 * when the command carries {@code lsid} and {@code txnNumber} (mongo/src/mongo/db/s/README.md "Retryable writes", "The logical session
 * catalog"):
 * <ol>
 *   <li>the session is checked out ({@link SessionCatalog}) for the whole command;</li>
 *   <li>a {@code txnNumber} below the session's is refused with TransactionTooOld (225); a higher one starts afresh
 *       (aborting a lower multi-document transaction still open); one that is a transaction's is
 *       ConflictingOperationInProgress (117);
 *       the same one continues, with the history of its statements read from the oplog ({@link SessionHistory});</li>
 *   <li>each statement, identified by its {@code stmtId} ({@link StatementIds}): one already executed is answered from
 *       its oplog entry and not run again; one whose history may have been truncated is a write error
 *       IncompleteTransactionHistory (217); any other runs as a {@link RetryableStatement}, so its write, its oplog
 *       entry's session fields and the session's {@code transactions} row commit together;</li>
 *   <li>a statement that fails writes nothing: its unit is rolled back, so no history is left and a retry runs it
 *       again, as in MongoDB.</li>
 * </ol>
 * The fail point {@link #AFTER_STATEMENT} is passed after each statement that wrote, once its transaction committed and
 * before the reply is sent.
 */
@Component
public class RetryableWrites {
    /** Fail point passed after a retryable statement's transaction committed, before the command replies. */
    static final String AFTER_STATEMENT = "retryableWrite.afterStatementCommitted";

    private final SessionCatalog catalog;
    private final SessionHistory history;
    private final WriteUnitOfWork units;
    private final FailPoints failPoints;
    private final TransactionParticipant transactions;

    RetryableWrites(SessionCatalog catalog, SessionHistory history, WriteUnitOfWork units, FailPoints failPoints,
            TransactionParticipant transactions) {
        this.transactions = transactions;
        this.catalog = catalog;
        this.history = history;
        this.units = units;
        this.failPoints = failPoints;
    }

    /**
     * The write error of a statement that changes several documents in a retryable write (MongoDB's, InvalidOptions 72):
     * such a statement cannot be retried safely, so it is refused rather than run.
     *
     * @param what {@code multi=true} or {@code limit=0}
     */
    public static StatementOutcome refusedMulti(String what) {
        return StatementOutcome.failed(new CommandException(ErrorCode.InvalidOptions, "Cannot use (or request) retryable writes with " + what));
    }

    /** The outcome of an insert or delete statement that already ran: its one document ({@code n: 1}). */
    public static StatementOutcome oneDocument(SessionHistory.ExecutedStatement executed) {
        return new StatementOutcome(1, 0, null, null);
    }

    /** The session of {@code opCtx}'s command when it is a retryable write, else empty. */
    public static Optional<OperationSessionInfo> retryable(OperationContext opCtx) {
        return opCtx.session().filter(OperationSessionInfo::isRetryable);
    }

    /** One statement of a write command: statement {@code i}, run with the context its units are to open with. */
    @FunctionalInterface
    public interface Statement {
        public StatementOutcome run(OperationContext opCtx, int i);
    }

    /**
     * Runs {@code count} statements of {@code opCtx}'s command in order (an ordered batch stops at the first failing
     * one), statement {@code i} with the {@code i}th of the command's statement ids ({@link OperationSessionInfo#statementIds}).
     *
     * @param execute runs statement {@code i}
     * @param replay  the outcome of an executed statement, from its oplog entry
     * @throws CommandException TransactionTooOld (225); MaxTimeMSExpired (50) when the session stays checked out
     */
    public WriteResult run(OperationContext opCtx, int count, boolean ordered, Statement execute,
            Function<SessionHistory.ExecutedStatement, StatementOutcome> replay) {
        Optional<OperationSessionInfo> session = retryable(opCtx);
        if (session.isEmpty()) {
            return WriteResult.ofStatements(count, ordered, i -> execute.run(opCtx, i));
        }
        int[] stmtIds = session.get().statementIds().of(count);
        return runInSession(opCtx, session.get(), progress -> statements(opCtx, session.get(), progress, stmtIds, ordered, execute, replay));
    }

    /**
     * Runs the statements of a retryable {@code insert}: when none of them ran yet, first as one batch in one transaction
     * ({@code batch}, a {@link RetryableStatement#insertBatch}), which must write every document; when it cannot (a
     * duplicate, a rejected document, some statements already ran), one statement per document as {@link #run} does.
     *
     * @param batch inserts every document in one write
     * @param one   inserts document {@code i}
     * @throws CommandException as {@link #run}
     */
    public WriteResult runInsert(OperationContext opCtx, OperationSessionInfo session, int count, boolean ordered,
            Function<OperationContext, WriteResult> batch, Statement one) {
        int[] stmtIds = session.statementIds().of(count);
        return runInSession(opCtx, session, progress -> {
            boolean fresh = progress.transaction.complete() && Arrays.stream(stmtIds).noneMatch(progress.transaction.executed()::containsKey);
            if (fresh) {
                RetryableStatement statement = RetryableStatement.insertBatch(session.lsid(), txnNumber(session), stmtIds, progress.lastOpTime);
                try {
                    WriteResult result = units.asStatement(opCtx, statement, batch);
                    if (statement.opTime() != 0) { // every document written, with its statement's history
                        progress.lastOpTime = statement.opTime();
                        failPoints.hit(AFTER_STATEMENT);
                        return result;
                    }
                } catch (SessionHistory.PartialBatchException e) {
                    // rolled back: nothing of the batch committed; the statements run one by one below
                }
            }
            return statements(opCtx, session, progress, stmtIds, ordered, one, RetryableWrites::oneDocument);
        });
    }

    private WriteResult statements(OperationContext opCtx, OperationSessionInfo session, Progress progress, int[] stmtIds,
            boolean ordered, Statement execute, Function<SessionHistory.ExecutedStatement, StatementOutcome> replay) {
        return WriteResult.ofStatements(stmtIds.length, ordered, i -> {
            try {
                return statement(opCtx, session, progress, stmtIds[i], statementCtx -> execute.run(statementCtx, i), replay);
            } catch (CommandException e) {
                if (e.code() != ErrorCode.IncompleteTransactionHistory) {
                    throw e;
                }
                return StatementOutcome.failed(e); // a write error of this statement, as in MongoDB
            }
        });
    }

    /**
     * Runs one statement of {@code opCtx}'s command (findAndModify's one write) with {@code stmtId} from the command (0 by
     * default), answering from history when it already ran.
     *
     * @param execute runs the statement; it throws for a failure
     * @param replay  the result of the executed statement, from its oplog entry
     * @throws CommandException TransactionTooOld (225), IncompleteTransactionHistory (217), MaxTimeMSExpired (50), or
     *                          what {@code execute} throws
     */
    public <T> T runOne(OperationContext opCtx, Function<OperationContext, T> execute,
            Function<SessionHistory.ExecutedStatement, T> replay) {
        Optional<OperationSessionInfo> session = retryable(opCtx);
        if (session.isEmpty()) {
            return execute.apply(opCtx);
        }
        int stmtId = session.get().statementIds().of(1)[0];
        return runInSession(opCtx, session.get(), progress -> statement(opCtx, session.get(), progress, stmtId, execute, replay));
    }

    /** The transaction number of a retryable write's session: {@link #retryable} keeps only the sessions that have one. */
    private static long txnNumber(OperationSessionInfo session) {
        return Objects.requireNonNull(session.txnNumber(), "a retryable write's session has a txnNumber");
    }

    private <T> T runInSession(OperationContext opCtx, OperationSessionInfo info, Function<Progress, T> body) {
        long txnNumber = txnNumber(info);
        transactions.awaitPreparedPredecessor(opCtx, info.lsid(), txnNumber);
        try (SessionCatalog.CheckedOutSession session = catalog.checkOut(info.lsid())) {
            transactions.beforeRetryableWrite(session, txnNumber);
            Optional<SessionHistory.TransactionRecord> record = history.find(info.lsid());
            if (record.isPresent() && record.get().committedTransaction() && record.get().txnNum() == txnNumber) {
                throw new CommandException(ErrorCode.ConflictingOperationInProgress, "Cannot run a retryable write with transaction"
                        + " number " + txnNumber + " on session " + info.lsid() + ": that number is a committed transaction's");
            }
            long current = Math.max(session.activeTxnNumber(), record.map(SessionHistory.TransactionRecord::txnNum).orElse(-1L));
            if (txnNumber < current) {
                throw new CommandException(ErrorCode.TransactionTooOld, "Cannot start transaction " + txnNumber + " on session "
                        + info.lsid() + " because a newer transaction " + current + " has already started.");
            }
            session.begin(txnNumber);
            SessionHistory.Transaction transaction = record.isPresent() && record.get().txnNum() == txnNumber
                    ? history.load(info.lsid(), record.get()) : SessionHistory.Transaction.NEW;
            return body.apply(new Progress(transaction));
        }
    }

    private <T> T statement(OperationContext opCtx, OperationSessionInfo info, Progress progress, int stmtId,
            Function<OperationContext, T> execute,
            Function<SessionHistory.ExecutedStatement, T> replay) {
        SessionHistory.ExecutedStatement executed = progress.transaction.executed().get(stmtId);
        if (executed != null) {
            return replay.apply(executed);
        }
        if (!progress.transaction.complete()) {
            throw new CommandException(ErrorCode.IncompleteTransactionHistory, "Incomplete history detected for transaction "
                    + info.txnNumber() + " on session " + info.lsid() + ": statement " + stmtId + " may have run");
        }
        RetryableStatement statement = new RetryableStatement(info.lsid(), txnNumber(info), stmtId, progress.lastOpTime);
        T result = units.asStatement(opCtx, statement, execute);
        if (statement.opTime() != 0) {
            progress.lastOpTime = statement.opTime();
            failPoints.hit(AFTER_STATEMENT);
        }
        return result;
    }

    /** The transaction number's history as the command found it, and its last write so far. */
    private static final class Progress {
        final SessionHistory.Transaction transaction;
        long lastOpTime;

        Progress(SessionHistory.Transaction transaction) {
            this.transaction = transaction;
            this.lastOpTime = transaction.lastOpTime();
        }
    }
}
