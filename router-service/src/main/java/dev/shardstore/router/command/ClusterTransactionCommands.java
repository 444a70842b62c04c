package dev.shardstore.router.command;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorLabel;
import dev.shardstore.contracts.session.OperationSessionInfo;
import dev.shardstore.router.peer.PeerClient;
import dev.shardstore.router.routing.ShardRegistry;
import dev.shardstore.router.transaction.RouterTransaction;
import dev.shardstore.router.transaction.TransactionAborter;
import dev.shardstore.support.command.CommandHandler;
import dev.shardstore.support.command.WriteConcern;
import dev.shardstore.support.operation.OperationContext;
import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The router's {@code commitTransaction} and {@code abortTransaction} (on {@code admin}, with the transaction's
 * {@code lsid}, {@code txnNumber} and {@code autocommit: false}; mongo/src/mongo/db/s/README.md "Committing a
 * Transaction", "Aborting a Transaction"), and the implicit abort of a transaction whose statement failed.
 *
 * <p>The commit takes MongoDB's paths by the participants it has: none — nothing to do; one — its
 * {@code commitTransaction}; several of which at most one wrote — the read-only ones first, then the one that wrote
 * (a read-only participant's commit releases its snapshot and cannot fail the outcome); several that wrote — two-phase
 * commit, {@code coordinateCommitTransaction} to the coordinator shard (the first participant), which prepares every
 * participant, writes the decision and delivers it. A participant or coordinator that did not answer the commit makes
 * it UnknownTransactionCommitResult (the commit may be retried). Replies carry {@code recoveryToken}; a commit
 * that carries one to a router that did not run the transaction is {@code coordinateCommitTransaction} with no
 * participants to the shard it names, which answers the coordinator's decision or its own outcome.
 */
@Configuration(proxyBeanMethods = false)
public class ClusterTransactionCommands implements TransactionAborter {
    private static final Logger log = LoggerFactory.getLogger(ClusterTransactionCommands.class);

    private final PeerClient client;
    private final ShardRegistry shards;

    public ClusterTransactionCommands(PeerClient client, ShardRegistry shards) {
        this.client = client;
        this.shards = shards;
    }

    @Bean
    CommandHandler commitTransaction() {
        return CommandHandler.of("commitTransaction", (opCtx, db, command) -> {
            Namespaces.checkAdmin(db, "commitTransaction");
            RouterTransaction txn = transactionOf(opCtx, "commitTransaction");
            BsonDocument writeConcernError = unsatisfiable(command);
            commit(txn);
            BsonDocument reply = Replies.ok(new BsonDocument("recoveryToken", txn.recoveryToken()));
            if (writeConcernError != null) {
                reply.put("writeConcernError", writeConcernError);
            }
            return reply;
        });
    }

    @Bean
    CommandHandler abortTransaction() {
        return CommandHandler.of("abortTransaction", (opCtx, db, command) -> {
            Namespaces.checkAdmin(db, "abortTransaction");
            RouterTransaction txn = transactionOf(opCtx, "abortTransaction");
            if (txn.participants().isEmpty()) {
                throw new CommandException(ErrorCode.NoSuchTransaction, "no known command has been sent by this router for transaction "
                        + txn.txnNumber() + " of session " + txn.lsid(), ErrorLabel.TransientTransactionError.extraInfo());
            }
            if (txn.state() == RouterTransaction.State.COMMITTED) {
                throw new CommandException(ErrorCode.TransactionCommitted, "Transaction " + txn.txnNumber() + " has been committed.");
            }
            abortQuietly(txn);
            return Replies.ok();
        });
    }

    /**
     * The {@code writeConcernError} of a {@code commitTransaction} whose write concern one copy per shard cannot satisfy
     * ({@code w} above 1: UnsatisfiableWriteConcern (100); a tag: UnknownReplWriteConcern (79)), null otherwise. MongoDB
     * commits such a transaction and reports the write concern's failure beside the ok, without an error label (the
     * transactions specification's commit tests); a malformed write concern still refuses the commit.
     *
     * @throws CommandException the refusals of {@link WriteConcern#of} other than those two
     */
    private static @Nullable BsonDocument unsatisfiable(BsonDocument command) {
        try {
            WriteConcern.of(command);
            return null;
        } catch (CommandException e) {
            if (e.code() != ErrorCode.UnsatisfiableWriteConcern && e.code() != ErrorCode.UnknownReplWriteConcern) {
                throw e;
            }
            return new BsonDocument("code", new BsonInt32(e.code().code())).append("codeName", new BsonString(e.code().codeName()))
                    .append("errmsg", new BsonString(e.getMessage()));
        }
    }

    /**
     * Aborts {@code txn} on every participant, as after a statement of it failed; a participant that does not answer
     * or no longer has the transaction is left to abort it itself (its lifetime limit).
     */
    @Override
    public void abortQuietly(RouterTransaction txn) {
        for (String shard : txn.participants()) {
            try {
                BsonDocument reply = send(shard, "abortTransaction", txn);
                if (reply.getNumber("ok").intValue() != 1 && reply.getNumber("code").intValue() != ErrorCode.NoSuchTransaction.code()) {
                    log.warn("abortTransaction of {} on {} failed: {}", txn.txnNumber(), shard, reply.toJson());
                }
            } catch (CommandException e) {
                log.warn("abortTransaction of {} on {} failed: {}", txn.txnNumber(), shard, e.getMessage());
            }
        }
        txn.ended(RouterTransaction.State.ABORTED);
    }

    private void commit(RouterTransaction txn) {
        if (txn.joined()) { // another router ran it: its recovery shard knows the outcome (it coordinates, or wrote first)
            checkCommitted(Objects.requireNonNull(txn.recoveryShard(), "a joined transaction has its recovery shard"),
                    sessionCommand("coordinateCommitTransaction", txn).append("participants", new BsonArray()));
            txn.ended(RouterTransaction.State.COMMITTED);
            return;
        }
        List<String> participants = txn.participants();
        List<String> writers = txn.writers();
        if (writers.size() > 1) {
            coordinate(txn, participants);
            txn.ended(RouterTransaction.State.COMMITTED);
            return;
        }
        for (String shard : participants) { // read-only participants first, the one writer (if any) last
            if (!writers.contains(shard)) {
                commitOn(shard, txn);
            }
        }
        for (String shard : writers) {
            commitOn(shard, txn);
        }
        txn.ended(RouterTransaction.State.COMMITTED);
    }

    /**
     * Two-phase commit: {@code coordinateCommitTransaction} with every participant to the coordinator, the first
     * participant (mongo/src/mongo/db/s/README.md "Two-phase Commit Protocol").
     */
    private void coordinate(RouterTransaction txn, List<String> participants) {
        BsonArray list = new BsonArray();
        participants.forEach(shard -> list.add(new BsonDocument("shardId", new BsonString(shard))));
        BsonDocument command = sessionCommand("coordinateCommitTransaction", txn).append("participants", list);
        checkCommitted(participants.getFirst(), command);
    }

    private void commitOn(String shard, RouterTransaction txn) {
        checkCommitted(shard, sessionCommand("commitTransaction", txn));
    }

    /** Sends a commit to {@code shard}: its error as the commit's, UnknownTransactionCommitResult when it did not answer. */
    private void checkCommitted(String shard, BsonDocument command) {
        BsonDocument reply;
        try {
            reply = client.run(shard, shards.hostOf(shard), "admin", command);
        } catch (CommandException e) {
            throw ErrorLabel.isRetriableError(e.code()) ? unknownResult(e) : e;
        }
        if (reply.getNumber("ok").intValue() != 1) {
            ErrorCode code = ErrorCode.ofNumber(reply.getNumber("code").intValue());
            String message = reply.isString("errmsg") ? reply.getString("errmsg").getValue() : code.name();
            BsonDocument labels = reply.isArray(ErrorLabel.FIELD) ? new BsonDocument(ErrorLabel.FIELD, reply.get(ErrorLabel.FIELD)) : new BsonDocument();
            CommandException failure = new CommandException(code, message, labels);
            throw ErrorLabel.isRetriableError(code) ? unknownResult(failure) : failure;
        }
    }

    private static CommandException unknownResult(CommandException e) {
        return new CommandException(e.code(), e.getMessage(), ErrorLabel.UnknownTransactionCommitResult.extraInfo(), e);
    }

    private BsonDocument send(String shard, String name, RouterTransaction txn) {
        return client.run(shard, shards.hostOf(shard), "admin", sessionCommand(name, txn));
    }

    private static BsonDocument sessionCommand(String name, RouterTransaction txn) {
        BsonDocument command = new BsonDocument(name, new BsonInt32(1));
        command.putAll(OperationSessionInfo.transactionFields(txn.lsid(), txn.txnNumber()));
        return command;
    }

    private static RouterTransaction transactionOf(OperationContext opCtx, String name) {
        RouterTransaction txn = RouterTransaction.of(opCtx);
        if (txn == null) {
            throw new CommandException(ErrorCode.InvalidOptions, "'" + name + "' needs lsid, txnNumber and autocommit: false");
        }
        return txn;
    }
}
