package dev.shardstore.router.write;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.session.OperationSessionInfo;
import dev.shardstore.contracts.session.StatementIds;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.StaleRoutingException;
import dev.shardstore.router.routing.VersionedRouter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.TreeMap;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * One execution of a batched write command ({@code insert}, {@code update}, {@code delete}) as mongos runs it
 * (MongoDB's {@code BatchWriteOp}): every statement is targeted with the current routing; the statements go to
 * the shards in per-shard batches; the replies are merged into one {@code {n, nModified?, upserted?,
 * writeErrors?}} with the client's statement indexes.
 *
 * <ul>
 *   <li>Every pending statement is targeted before anything is sent. Unordered: one round, each shard getting
 *       its statements in index order; a statement whose target is a write error is reported at its index and
 *       the others still run.</li>
 *   <li>Ordered: rounds of consecutive statements bound for the same single shard (a statement for several
 *       shards is a round of its own), sent one after another; the first write error, or a statement that
 *       cannot be targeted, ends the command, so nothing after it in statement order is written.</li>
 *   <li>Stale routing: the shards that answered keep their results; the statements of a shard that answered
 *       StaleConfig/StaleDbVersion stay pending and are retargeted after the refresh (a multi-shard statement
 *       is not resent to the shards that already applied it), through {@link VersionedRouter#run}.</li>
 *   <li>Retryable write ({@code lsid} and {@code txnNumber}): statement {@code i} has the id {@link StatementIds} gives
 *       it (its client index unless the client sent {@code stmtIds}/{@code stmtId}); each shard gets {@code stmtIds} with
 *       the ids of its statements, so a retry of the command, however targeted, names each statement the same way
 *       (mongo/src/mongo/db/s/README.md "Retryable writes").</li>
 *   <li>A single-document statement without the shard key ({@link Target#withoutShardKey}) runs alone, after the
 *       unordered round or as its own ordered round, through {@link WriteWithoutShardKey}.</li>
 * </ul>
 *
 * Not thread-safe: one instance per command execution.
 */
public final class BatchedWrite {
    /**
     * Where a statement goes under a given routing: its shards, the write error that stops it, or — a single-document
     * write on a sharded collection whose filter does not pin the shard key — {@link WriteWithoutShardKey}'s two phases.
     */
    public record Target(List<String> shards, @Nullable BsonDocument error, boolean twoPhase) {
        public static Target to(List<String> shards) {
            return new Target(List.copyOf(shards), null, false);
        }

        public static Target failed(int index, ErrorCode code, String message) {
            return new Target(List.of(), writeError(index, code, message), false);
        }

        static Target withoutShardKey() {
            return new Target(List.of(), null, true);
        }
    }

    /**
     * Targets one statement (its client index and value) under a routing: a {@link Target#failed} target is a write
     * error for that statement alone; a thrown {@link CommandException} refuses the whole command, before any
     * statement of the attempt is sent.
     */
    @FunctionalInterface
    public interface Targeter {
        Target target(CollectionRouting routing, int index, BsonValue statement);
    }

    private static final class Statement {
        final int index;
        final BsonValue value;
        final Set<String> appliedOn = new HashSet<>();
        @Nullable Target rejection;
        boolean done;

        Statement(int index, BsonValue value) {
            this.index = index;
            this.value = value;
        }
    }

    private final VersionedRouter router;
    private final String db;
    private final String collection;
    private final BsonDocument command;
    private final String batchField;
    private final boolean ordered;
    private final boolean reportsModified;
    private final Targeter targeter;
    private final List<Statement> statements = new ArrayList<>();
    /** The statements' ids when the command is a retryable write (mongo/src/mongo/db/s/README.md "Retryable writes"), else null. */
    private final int @Nullable [] stmtIds;
    private @Nullable WriteWithoutShardKey withoutShardKey;

    private long n;
    private long nModified;
    private final List<BsonDocument> upserted = new ArrayList<>();
    private final List<BsonDocument> writeErrors = new ArrayList<>();
    private boolean stopped;

    /**
     * @param command         the client's command; each shard gets a copy with {@code batchField} replaced by its batch
     * @param batchField      {@code documents}, {@code updates} or {@code deletes}
     * @param values          the statements, index i being the client's index i
     * @param reportsModified whether the reply has {@code nModified} (update)
     */
    public BatchedWrite(VersionedRouter router, String db, String collection, BsonDocument command, String batchField, List<? extends BsonValue> values,
            boolean ordered, boolean reportsModified, Targeter targeter) {
        this.router = router;
        this.db = db;
        this.collection = collection;
        this.command = command;
        this.batchField = batchField;
        this.ordered = ordered;
        this.reportsModified = reportsModified;
        this.targeter = targeter;
        for (int i = 0; i < values.size(); i++) {
            statements.add(new Statement(i, values.get(i)));
        }
        this.stmtIds = OperationSessionInfo.of(command).filter(OperationSessionInfo::isRetryable)
                .map(session -> session.statementIds().of(values.size())).orElse(null);
    }

    /**
     * In a retryable write, rejects every statement that may change several documents with MongoDB's write error
     * InvalidOptions (72) "Cannot use (or request) retryable writes with {@code what}": such a statement cannot be
     * retried safely. Nothing outside a retryable write.
     *
     * @param multi whether a statement changes several documents
     * @param what  {@code multi=true} or {@code limit=0}
     */
    public BatchedWrite refuseMultiWhenRetryable(Predicate<BsonValue> multi, String what) {
        if (stmtIds != null) {
            for (Statement s : statements) {
                if (multi.test(s.value)) {
                    reject(s.index, ErrorCode.InvalidOptions, "Cannot use (or request) retryable writes with " + what);
                }
            }
        }
        return this;
    }

    /**
     * Runs the write; at most once per statement and shard, whatever the stale retries.
     *
     * @return the merged reply; empty when the database does not exist and {@code createDatabase} is false
     * @throws CommandException a routing error (the config service unreachable, stale after every attempt); a shard's
     *                          command-level error or transport failure becomes write errors of its statements
     */
    public Optional<BsonDocument> execute(OperationContext opCtx, boolean createDatabase) {
        boolean nothingToRoute = ordered ? statements.get(0).rejection != null : statements.stream().allMatch(s -> s.rejection != null);
        if (nothingToRoute) { // e.g. an oversized document: answered without asking the config service or a shard
            for (Statement s : statements) {
                if (s.rejection != null && !reached(s, s.rejection) && ordered) {
                    break;
                }
            }
            return Optional.of(reply());
        }
        return router.run(opCtx, db, collection, createDatabase, routing -> {
            attempt(opCtx, routing);
            return reply();
        });
    }

    /**
     * Rejects statement {@code index} whatever the routing (a check that needs no routing, such as the document size
     * limit), before {@link #execute}; when no statement is left to send, execute answers without routing at all.
     */
    public BatchedWrite reject(int index, ErrorCode code, String message) {
        statements.get(index).rejection = Target.failed(index, code, message);
        return this;
    }

    private void attempt(OperationContext opCtx, CollectionRouting routing) {
        if (stopped) {
            return;
        }
        List<Statement> pending = statements.stream().filter(s -> !s.done).toList();
        Map<Statement, Target> targets = new IdentityHashMap<>();
        Function<Statement, Target> targetOf = s -> targets.computeIfAbsent(s,
                k -> k.rejection != null ? k.rejection : notYetApplied(k, targeter.target(routing, k.index, k.value)));
        pending.forEach(targetOf::apply); // a targeter that refuses the whole command does so before anything is sent
        if (!ordered) {
            List<Statement> round = new ArrayList<>();
            List<Statement> twoPhase = new ArrayList<>();
            for (Statement s : pending) {
                if (targetOf.apply(s).twoPhase()) {
                    twoPhase.add(s);
                } else if (reached(s, targetOf.apply(s))) {
                    round.add(s);
                }
            }
            send(opCtx, routing, round, targetOf);
            twoPhase.forEach(s -> writeWithoutShardKey(opCtx, routing, s));
            return;
        }
        int i = 0;
        while (i < pending.size() && !stopped) {
            Statement first = pending.get(i);
            Target target = targetOf.apply(first);
            if (target.twoPhase()) {
                writeWithoutShardKey(opCtx, routing, first);
                i++;
                continue;
            }
            if (!reached(first, target)) {
                stopped = target.error() != null;
                i++;
                continue;
            }
            List<Statement> round = new ArrayList<>(List.of(first));
            int next = i + 1;
            // A run of statements for the same single shard is one batch; a failing one is reported when reached.
            while (target.shards().size() == 1 && next < pending.size() && target.shards().equals(targetOf.apply(pending.get(next)).shards())) {
                round.add(pending.get(next++));
            }
            send(opCtx, routing, round, targetOf);
            i = next;
        }
    }

    /** {@code target} without the shards the statement was already applied on (by an attempt before a stale reply). */
    private static Target notYetApplied(Statement s, Target target) {
        return target.error() != null || target.twoPhase() ? target : Target.to(target.shards().stream().filter(shard -> !s.appliedOn.contains(shard)).toList());
    }

    /**
     * Whether {@code s} is to be sent: false, the statement done, when its targeting failed (its write error
     * recorded) or no shard is left to apply it on.
     */
    private boolean reached(Statement s, Target target) {
        if (target.error() != null) {
            writeErrors.add(target.error());
        }
        if (target.error() != null || target.shards().isEmpty()) {
            s.done = true;
            return false;
        }
        return true;
    }

    /** Sends {@code round}'s statements in per-shard batches; {@code targetOf} gives each its target of this attempt. */
    private void send(OperationContext opCtx, CollectionRouting routing, List<Statement> round, Function<Statement, Target> targetOf) {
        Map<String, List<Statement>> batches = new TreeMap<>();
        for (Statement s : round) {
            for (String shard : targetOf.apply(s).shards()) {
                batches.computeIfAbsent(shard, k -> new ArrayList<>()).add(s);
            }
        }
        if (batches.isEmpty()) {
            return;
        }
        Map<String, BsonDocument> replies = router.sendEach(opCtx, routing, List.copyOf(batches.keySet()), db, shard -> batch(batchOf(batches, shard)));
        StaleRoutingException stale = null;
        for (Map.Entry<String, BsonDocument> e : replies.entrySet()) {
            BsonDocument reply = e.getValue();
            if (StaleRoutingException.isStaleReply(reply)) {
                stale = stale != null ? stale : new StaleRoutingException(e.getKey(), reply);
            } else if (ErrorReplies.isError(reply)) {
                failed(e.getKey(), batchOf(batches, e.getKey()), reply);
            } else {
                merge(e.getKey(), batchOf(batches, e.getKey()), reply);
            }
        }
        for (Statement s : round) {
            if (s.appliedOn.containsAll(targetOf.apply(s).shards())) {
                s.done = true;
            }
        }
        if (stale != null && !stopped) {
            throw stale;
        }
    }

    /** The batch of {@code shard}, a shard the round was sent to (a key of {@code batches}). */
    private static List<Statement> batchOf(Map<String, List<Statement>> batches, String shard) {
        return Objects.requireNonNull(batches.get(shard), () -> "no batch for shard " + shard);
    }

    /**
     * Runs statement {@code s} alone through {@link WriteWithoutShardKey} and records its result like a shard's batch of
     * one; a StaleRoutingException leaves it pending for the rerun on fresh routing. An error found on the router (an
     * upsert whose document cannot be built) is that statement's write error, as the shard would have reported it.
     */
    private void writeWithoutShardKey(OperationContext opCtx, CollectionRouting routing, Statement s) {
        if (withoutShardKey == null) {
            withoutShardKey = new WriteWithoutShardKey(opCtx, router, db, collection, command);
        }
        try {
            Optional<WriteWithoutShardKey.Outcome> outcome = withoutShardKey.writeStatement(routing, batchField, s.value.asDocument(),
                    new CommandArgs(command).optionalBoolean(s.value.asDocument(), "upsert", "upsert", false),
                    stmtIds == null ? null : stmtIds[s.index]);
            if (outcome.isPresent() && ErrorReplies.isError(outcome.get().reply())) {
                failed(outcome.get().shard(), List.of(s), outcome.get().reply());
            } else if (outcome.isPresent()) {
                merge(outcome.get().shard(), List.of(s), outcome.get().reply());
            }
        } catch (CommandException e) {
            writeErrors.add(writeError(s.index, e.code(), e.getMessage()));
            stopped |= ordered;
        }
        s.done = true;
    }

    /**
     * A shard answered the batch with a command error or did not answer at all (HostUnreachable, NetworkTimeout):
     * as mongos does, each of its statements becomes a write error with that code — the other shards' results stay
     * reported — and an ordered write stops. After a transport failure the shard may or may not have applied them;
     * the write error says which statements are in doubt.
     */
    private void failed(String shard, List<Statement> batch, BsonDocument reply) {
        CommandException error = ErrorReplies.toException(reply);
        for (Statement s : batch) {
            writeErrors.add(writeError(s.index, error.code(), "shard " + shard + ": " + error.getMessage()));
            s.done = true;
        }
        stopped |= ordered;
    }

    private BsonDocument batch(List<Statement> batch) {
        BsonDocument forShard = new BsonDocument();
        forShard.putAll(command); // shallow: the statements are shared, not copied
        forShard.put(batchField, new BsonArray(batch.stream().map(s -> s.value).toList()));
        if (stmtIds != null) { // each shard gets its statements' ids by the client's indexes, as mongos sends them
            forShard.remove(StatementIds.STMT_ID);
            forShard.put(StatementIds.STMT_IDS, StatementIds.toBson(batch.stream().mapToInt(s -> stmtIds[s.index]).toArray()));
        }
        return forShard;
    }

    private void merge(String shard, List<Statement> batch, BsonDocument reply) {
        n += reply.getNumber("n", new BsonInt32(0)).longValue();
        nModified += reply.getNumber("nModified", new BsonInt32(0)).longValue();
        for (BsonValue u : reply.getArray("upserted", new BsonArray())) {
            BsonDocument remapped = u.asDocument().clone();
            remapped.put("index", new BsonInt32(batch.get(remapped.getNumber("index").intValue()).index));
            upserted.add(remapped);
        }
        for (BsonValue error : reply.getArray("writeErrors", new BsonArray())) {
            BsonDocument remapped = error.asDocument().clone();
            remapped.put("index", new BsonInt32(batch.get(remapped.getNumber("index").intValue()).index));
            writeErrors.add(remapped);
            stopped |= ordered;
        }
        batch.forEach(s -> s.appliedOn.add(shard));
    }

    /** {@code {n, nModified?, upserted?, writeErrors?, ok: 1}}, errors sorted by index, one per statement. */
    private BsonDocument reply() {
        BsonDocument reply = new BsonDocument("n", number(n));
        if (reportsModified) {
            reply.append("nModified", number(nModified));
        }
        if (!upserted.isEmpty()) {
            List<BsonDocument> sorted = new ArrayList<>(upserted);
            sorted.sort(Comparator.comparingInt(u -> u.getNumber("index").intValue()));
            reply.append("upserted", new BsonArray(sorted));
        }
        if (!writeErrors.isEmpty()) {
            Map<Integer, BsonDocument> byIndex = new TreeMap<>();
            writeErrors.forEach(e -> byIndex.putIfAbsent(e.getNumber("index").intValue(), e));
            List<BsonDocument> errors = new ArrayList<>(byIndex.values());
            if (ordered) {
                errors.subList(1, errors.size()).clear(); // only one can exist; kept defensively small
            }
            reply.append("writeErrors", new BsonArray(errors));
        }
        return Replies.ok(reply);
    }

    private static BsonValue number(long value) {
        return value <= Integer.MAX_VALUE ? new BsonInt32((int) value) : new BsonInt64(value);
    }

    /**
     * {@code doc} itself when it has an {@code _id}, else a copy with a new ObjectId placed first: the router gives a
     * document it is about to insert its {@code _id}, rather than the shard, so that routing (and a {@code $merge}'s
     * match on {@code _id}) sees it.
     */
    public static BsonDocument withId(BsonDocument doc) {
        if (doc.containsKey("_id")) {
            return doc;
        }
        BsonDocument withId = new BsonDocument("_id", new BsonObjectId());
        withId.putAll(doc);
        return withId;
    }

    /** A write error {@code {index, code, codeName, errmsg}}. */
    static BsonDocument writeError(int index, ErrorCode code, String message) {
        return new BsonDocument("index", new BsonInt32(index))
                .append("code", new BsonInt32(code.code()))
                .append("codeName", new BsonString(code.codeName()))
                .append("errmsg", new BsonString(message));
    }
}
