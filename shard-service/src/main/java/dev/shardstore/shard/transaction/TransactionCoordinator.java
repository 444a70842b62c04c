package dev.shardstore.shard.transaction;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorLabel;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.session.OperationSessionInfo;
import dev.shardstore.shard.migration.MigrationPeers;
import dev.shardstore.support.failpoint.FailPoints;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.support.parameter.ServerParameters;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletableFuture;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The coordinator of two-phase commit (MongoDB's {@code TransactionCoordinator}; mongo/src/mongo/db/s/README.md
 * "Two-phase Commit Protocol"), run by the shard the router chose (the transaction's first participant) when it sends
 * {@code coordinateCommitTransaction} with the participants:
 * <ol>
 *   <li>the participants are written to {@code transaction_coordinators} (Flyway {@code V8}), with a synchronous
 *       commit, before anything else;</li>
 *   <li>each participant is sent {@code prepareTransaction}, all at once; every vote is a prepare time, or the first
 *       refusal or silence decides abort;</li>
 *   <li>the decision — commit at the highest prepare time, or abort — is written to the row, with a synchronous
 *       commit, before any participant hears of it;</li>
 *   <li>each participant is sent {@code commitTransaction} with the commit time, or {@code abortTransaction}, all at
 *       once; once every one has applied it the row is deleted (without waiting for the disk: a row left is only
 *       delivered again).</li>
 * </ol>
 * The command answers (ok for commit; NoSuchTransaction labelled TransientTransactionError for abort) once the
 * decision is written, and step 4 goes on in the background, as MongoDB's coordinator does by default
 * ({@code coordinateCommitTransactionReturnImmediatelyAfterPersistingDecision}, {@link
 * ServerParameters#COORDINATE_COMMIT_RETURN_IMMEDIATELY}); with the parameter false, once the decision was delivered
 * once. Answering early loses nothing (the decision is durable, and delivered again until applied) and hides nothing
 * from a causally consistent client: its next read or transaction carries {@code afterClusterTime} at or above the
 * commit time, and a participant's read at such a time waits for the prepared transaction's decision to be applied
 * (docs/architecture.md "Snapshot reads"). A read without {@code afterClusterTime} may see the state before the commit
 * for that moment, as on MongoDB. A participant that did not take the decision gets it again every
 * {@code shardstore.shard.transactions.reap-interval} ({@link #resume}), which also takes up, after a restart, every row
 * left: one with its decision is delivered, one without is decided abort (its participants may be prepared, and
 * nothing has told anyone to commit). With no participants (a router committing with the {@code recoveryToken} that
 * names this shard) the command joins: it waits for a coordination of this process under way, answers the decision
 * of a row still here, and otherwise this shard's own outcome as a participant
 * ({@link TransactionParticipant#committedHere}): ok when it committed here, NoSuchTransaction when not. The fail points {@link #AFTER_PARTICIPANTS} and {@link #AFTER_DECISION} (crash, for
 * the fault tests) are passed after each write, and {@link #RESUME_LISTED} between {@link #resume}'s look at the rows
 * and its taking them up.
 */
@Component
public class TransactionCoordinator {
    /** Fail point passed once the participants are written, before any prepare. */
    public static final String AFTER_PARTICIPANTS = "transactionCoordinator.afterParticipants";
    /** Fail point passed once the decision is written, before any participant hears of it. */
    public static final String AFTER_DECISION = "transactionCoordinator.afterDecision";
    /** Fail point passed when a delivery in the background has ended, its coordination released, applied or not. */
    public static final String AFTER_BACKGROUND_DELIVERY = "transactionCoordinator.afterBackgroundDelivery";
    /** Fail point passed once {@link #resume} has listed a row or more, before it takes any up. */
    public static final String RESUME_LISTED = "transactionCoordinator.resumeListed";
    private static final Logger log = LoggerFactory.getLogger(TransactionCoordinator.class);

    private final JdbcClient jdbc;
    /** One PostgreSQL transaction per write of the row, each choosing its own {@code synchronous_commit}. */
    private final TransactionTemplate writes;
    private final MigrationPeers peers;
    private final FailPoints failPoints;
    private final TransactionParticipant participant;
    private final ServerParameters parameters;
    /** How long a joining router's commit waits for a decision under way (a coordination here, a prepared participant). */
    static final Duration JOIN_WAIT = Duration.ofSeconds(10);
    /** The transactions this process is coordinating now, which {@link #resume} leaves to their command. */
    private final Map<Key, CompletableFuture<Void>> active = new ConcurrentHashMap<>();

    public TransactionCoordinator(JdbcClient jdbc, PlatformTransactionManager transactions, MigrationPeers peers, FailPoints failPoints,
            TransactionParticipant participant, ServerParameters parameters) {
        this.participant = participant;
        this.parameters = parameters;
        this.jdbc = jdbc;
        this.writes = new TransactionTemplate(transactions);
        this.peers = peers;
        this.failPoints = failPoints;
    }

    /** A coordinated transaction: the session's stored key (hex) and the transaction number. */
    private record Key(String lsid, long txnNumber) {
        static Key of(byte[] lsid, long txnNumber) {
            return new Key(HexFormat.of().formatHex(lsid), txnNumber);
        }
    }

    /** A row of {@code transaction_coordinators}. */
    private record Coordination(byte[] lsid, long txnNumber, List<String> participants, @Nullable String decision, long commitTs) {}

    /**
     * {@code coordinateCommitTransaction} for {@code opCtx}'s session and transaction number (see the class comment).
     *
     * @param participants the shards to commit on; empty to join a coordination already under way or decided
     * @throws CommandException NoSuchTransaction (251, TransientTransactionError) when the decision is abort or, when
     *                          joining, no coordination is known
     */
    public void coordinateCommit(OperationContext opCtx, List<String> participants) {
        OperationSessionInfo info = opCtx.session().orElseThrow(() -> new CommandException(ErrorCode.InvalidOptions,
                "coordinateCommitTransaction needs lsid, txnNumber and autocommit: false"));
        long txnNumber = Objects.requireNonNull(info.txnNumber(), "a transaction's command has a txnNumber");
        byte[] lsid = BsonBytes.encode(info.lsid().toBson());
        Key key = Key.of(lsid, txnNumber);
        if (!take(key) && (!participants.isEmpty() || !awaitOwnCoordination(key))) {
            throw new CommandException(ErrorCode.ConflictingOperationInProgress, "the commit of transaction " + txnNumber
                    + " is already being coordinated");
        }
        boolean delivering = false;
        try {
            Coordination row = find(lsid, txnNumber).orElse(null);
            if (row == null) {
                if (participants.isEmpty()) { // a router joining with the recoveryToken: this shard's own outcome is the decision
                    if (!participant.committedHere(opCtx, JOIN_WAIT)) {
                        throw new CommandException(ErrorCode.NoSuchTransaction, "transaction " + txnNumber + " of session "
                                + info.lsid() + " did not commit", ErrorLabel.TransientTransactionError.extraInfo());
                    }
                    return;
                }
                row = new Coordination(lsid, txnNumber, List.copyOf(participants), null, 0);
                writeParticipants(row);
                failPoints.hit(AFTER_PARTICIPANTS);
            }
            if (row.decision() == null) {
                row = decide(row, info.lsid());
                failPoints.hit(AFTER_DECISION);
            }
            if (parameters.booleanValue(ServerParameters.COORDINATE_COMMIT_RETURN_IMMEDIATELY)) {
                deliverInBackground(row, info.lsid(), key);
                delivering = true;
            } else {
                deliver(row, info.lsid());
            }
            if (!"commit".equals(row.decision())) {
                throw new CommandException(ErrorCode.NoSuchTransaction, "Transaction " + txnNumber + " was aborted: a participant"
                        + " did not prepare it", ErrorLabel.TransientTransactionError.extraInfo());
            }
        } finally {
            if (!delivering) {
                release(key);
            }
        }
    }

    /**
     * Delivers {@code row}'s decision on a virtual thread of its own, which ends this process's coordination of
     * {@code key} when done: until then {@link #resume} leaves the row alone, and a joining router waits for it. A
     * delivery that fails is taken up again by {@link #resume}.
     */
    private void deliverInBackground(Coordination row, LogicalSessionId lsid, Key key) {
        Thread.ofVirtual().name("deliver-txn-" + row.txnNumber()).start(() -> {
            try {
                deliver(row, lsid);
            } catch (RuntimeException e) {
                log.warn("delivering the decision of transaction {} failed (retried later): {}", row.txnNumber(), e.toString());
            } finally {
                release(key);
                failPoints.hit(AFTER_BACKGROUND_DELIVERY);
            }
        });
    }

    /** Marks {@code key} as coordinated by this process now; false when it already is. */
    private boolean take(Key key) {
        return active.putIfAbsent(key, new CompletableFuture<>()) == null;
    }

    /** Ends this process's coordination of {@code key}, waking a joining router's command that waits for it. */
    private void release(Key key) {
        CompletableFuture<Void> running = active.remove(key);
        if (running != null) {
            running.complete(null);
        }
    }

    /**
     * Waits until this process's own coordination of {@code key} (the first router's commit) is over, then takes it,
     * so that a joining router reads its decision, or the participant's outcome once the row is gone.
     *
     * @return false when it is still running after {@link #JOIN_WAIT}
     */
    private boolean awaitOwnCoordination(Key key) {
        long deadline = System.nanoTime() + JOIN_WAIT.toNanos();
        while (!take(key)) {
            CompletableFuture<Void> running = active.get(key);
            if (running == null) {
                continue; // released between the two looks
            }
            try {
                running.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException e) {
                throw new IllegalStateException("a coordination's end is never completed exceptionally", e);
            }
        }
        return true;
    }

    /**
     * Takes up every coordination this process is not running now: delivers its decision, or decides abort for one
     * that has none (left by a coordinator that stopped before deciding). Scheduled; also right after start-up.
     */
    @Scheduled(initialDelayString = "${shardstore.shard.transactions.reap-interval:1s}",
            fixedDelayString = "${shardstore.shard.transactions.reap-interval:1s}")
    public void resume() {
        List<Coordination> listed = all();
        if (!listed.isEmpty()) {
            failPoints.hit(RESUME_LISTED);
        }
        for (Coordination seen : listed) {
            Key key = Key.of(seen.lsid(), seen.txnNumber());
            if (!take(key)) {
                continue;
            }
            try {
                // read again once it is ours: the listing may predate the decision of a coordination that wrote it and
                // ended since (its delivery failed), and deciding abort from the listing would overturn a commit
                Coordination row = find(seen.lsid(), seen.txnNumber()).orElse(null);
                if (row == null) {
                    continue; // delivered and deleted meanwhile
                }
                LogicalSessionId lsid = LogicalSessionId.parse(BsonBytes.decode(row.lsid()), "lsid");
                Coordination decided = row;
                if (row.decision() == null) {
                    decided = new Coordination(row.lsid(), row.txnNumber(), row.participants(), "abort", 0);
                    writeDecision(decided);
                    log.info("transaction {} of session {} had no decision when its coordinator stopped: it is aborted", row.txnNumber(), lsid);
                }
                deliver(decided, lsid);
            } catch (RuntimeException e) {
                log.warn("resuming the coordination of transaction {} failed (retried later): {}", seen.txnNumber(), e.toString());
            } finally {
                release(key);
            }
        }
    }

    /** Phase one: the prepares, then the decision written. */
    private Coordination decide(Coordination row, LogicalSessionId lsid) {
        List<Long> votes = new ArrayList<>();
        boolean commit = true;
        List<Outcome> outcomes = sendToAll(row.participants(), shard -> command("prepareTransaction", lsid, row.txnNumber()));
        for (int i = 0; i < outcomes.size(); i++) {
            Outcome outcome = outcomes.get(i);
            if (outcome.reply() != null) {
                votes.add(outcome.reply().getTimestamp("prepareTimestamp").getValue());
            } else if (!(outcome.failure() instanceof CommandException c && c.code() == ErrorCode.TransactionCommitted)) {
                // TransactionCommitted: committed already, which only a commit decision reached before this coordination does
                commit = false;
                log.info("participant {} did not prepare transaction {}: {}", row.participants().get(i), row.txnNumber(), String.valueOf(outcome.failure()));
            }
        }
        long commitTs = commit ? votes.stream().reduce(0L, (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b) : 0;
        Coordination decided = new Coordination(row.lsid(), row.txnNumber(), row.participants(), commit ? "commit" : "abort", commitTs);
        writeDecision(decided);
        return decided;
    }

    /**
     * Phase two: every participant told at once; the row deleted once every one applied it. The delete need not be
     * on disk before the answer: a row that outlives a crash is delivered again ({@link #resume}), and a participant
     * answers a decision it already applied with ok.
     */
    private void deliver(Coordination row, LogicalSessionId lsid) {
        boolean commit = "commit".equals(row.decision());
        List<Outcome> outcomes = sendToAll(row.participants(), shard -> {
            BsonDocument command = command(commit ? "commitTransaction" : "abortTransaction", lsid, row.txnNumber());
            if (commit) {
                command.append(TransactionParticipant.COMMIT_TIMESTAMP, new BsonTimestamp(row.commitTs()));
            }
            return command;
        });
        boolean all = true;
        for (int i = 0; i < outcomes.size(); i++) {
            RuntimeException failure = outcomes.get(i).failure();
            if (failure != null && !(!commit && failure instanceof CommandException c && c.code() == ErrorCode.NoSuchTransaction)) {
                all = false; // NoSuchTransaction after an abort: the participant applied it already
                log.info("participant {} did not take the decision of transaction {} yet (retried): {}", row.participants().get(i),
                        row.txnNumber(), failure.getMessage());
            }
        }
        if (all) {
            writes.executeWithoutResult(status -> {
                jdbc.sql("SET LOCAL synchronous_commit = off").update();
                jdbc.sql("DELETE FROM transaction_coordinators WHERE lsid = ? AND txn_number = ?").param(row.lsid()).param(row.txnNumber()).update();
            });
        }
    }

    /** A participant's answer to one command: its reply, or the failure of the call (a {@link CommandException} or not). */
    private record Outcome(@Nullable BsonDocument reply, @Nullable RuntimeException failure) {}

    /**
     * Sends {@code commandFor(shard)} to every one of {@code shards} at once, each on its own virtual thread, and
     * waits for all: one outcome per shard, in the order of {@code shards}. An interrupt counts as every unanswered
     * call failing.
     */
    private List<Outcome> sendToAll(List<String> shards, java.util.function.Function<String, BsonDocument> commandFor) {
        List<Outcome> outcomes = new ArrayList<>();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<BsonDocument>> replies = new ArrayList<>();
            for (String shard : shards) {
                BsonDocument command = commandFor.apply(shard);
                replies.add(executor.submit(() -> peers.onShard(shard, "admin", command)));
            }
            for (Future<BsonDocument> reply : replies) {
                try {
                    outcomes.add(new Outcome(reply.get(), null));
                } catch (ExecutionException e) {
                    outcomes.add(new Outcome(null, e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    outcomes.add(new Outcome(null, new IllegalStateException("interrupted while waiting for a participant", e)));
                }
            }
        }
        return outcomes;
    }

    private void writeParticipants(Coordination row) {
        writes.executeWithoutResult(status -> {
            synchronousCommit();
            jdbc.sql("INSERT INTO transaction_coordinators (lsid, txn_number, participants) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
                    .param(row.lsid()).param(row.txnNumber()).param(row.participants().toArray(String[]::new)).update();
        });
    }

    private void writeDecision(Coordination row) {
        writes.executeWithoutResult(status -> {
            synchronousCommit();
            jdbc.sql("UPDATE transaction_coordinators SET decision = ?, commit_ts = ? WHERE lsid = ? AND txn_number = ?")
                    .param(row.decision()).param(row.commitTs()).param(row.lsid()).param(row.txnNumber()).update();
        });
    }

    /** A decision is acknowledged to nobody before it is on disk, whatever the server's default (docs/architecture.md "Durability"). */
    private void synchronousCommit() {
        jdbc.sql("SET LOCAL synchronous_commit = on").update();
    }

    private Optional<Coordination> find(byte[] lsid, long txnNumber) {
        return jdbc.sql("SELECT lsid, txn_number, participants, decision, commit_ts FROM transaction_coordinators WHERE lsid = ? AND txn_number = ?")
                .param(lsid).param(txnNumber).query(TransactionCoordinator::row).optional();
    }

    private List<Coordination> all() {
        return jdbc.sql("SELECT lsid, txn_number, participants, decision, commit_ts FROM transaction_coordinators")
                .query(TransactionCoordinator::row).list();
    }

    private static Coordination row(java.sql.ResultSet rs, int i) throws java.sql.SQLException {
        String[] participants = (String[]) rs.getArray(3).getArray();
        return new Coordination(rs.getBytes(1), rs.getLong(2), Arrays.asList(participants), rs.getString(4), rs.getLong(5));
    }

    private static BsonDocument command(String name, LogicalSessionId lsid, long txnNumber) {
        BsonDocument command = new BsonDocument(name, new BsonInt32(1));
        command.putAll(OperationSessionInfo.transactionFields(lsid, txnNumber));
        return command;
    }

    /** The participants named in a {@code coordinateCommitTransaction}: {@code participants: [{shardId}, ...]}. */
    public static List<String> participantsOf(BsonDocument command) {
        List<String> shards = new ArrayList<>();
        if (command.isArray("participants")) {
            command.getArray("participants").forEach(p -> {
                if (!p.isDocument() || !p.asDocument().isString("shardId")) {
                    throw new CommandException(ErrorCode.TypeMismatch, "'coordinateCommitTransaction.participants' entries must be"
                            + " {shardId: <string>}, not " + p);
                }
                shards.add(p.asDocument().getString("shardId").getValue());
            });
        } else if (command.containsKey("participants")) {
            throw new CommandException(ErrorCode.TypeMismatch, "'coordinateCommitTransaction.participants' must be an array");
        }
        return shards;
    }
}
