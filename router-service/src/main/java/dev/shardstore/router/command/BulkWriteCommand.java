package dev.shardstore.router.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.session.StatementIds;
import dev.shardstore.router.command.BulkWriteRequest.Kind;
import dev.shardstore.router.command.BulkWriteRequest.Op;
import dev.shardstore.router.cursor.DocumentStream;
import dev.shardstore.router.cursor.RouterCursorManager;
import dev.shardstore.support.command.CommandHandler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * {@code bulkWrite} (MongoDB 8.0): inserts, updates and deletes on any number of collections in one command, run on the
 * {@code admin} database (MongoDB manual "bulkWrite"; the driver "Bulk Write" specification). Reply:
 * {@code {cursor: {id, firstBatch: [{ok, idx, n, nModified?, upserted?: {_id}} | {ok: 0, idx, code, codeName, errmsg,
 * ...}], ns: "admin.$cmd.bulkWrite"}, nErrors, nInserted, nMatched, nModified, nUpserted, nDeleted, writeConcernError?,
 * ok: 1}}; with {@code errorsOnly: true} the cursor holds the errors only.
 *
 * <p>How it runs: the ops ({@link BulkWriteRequest}, all checked first) are cut into runs, each executed as the
 * router's own {@code insert}, {@code update} or {@code delete} on one collection, so targeting, shard versions,
 * stale-routing retries, writes without the shard key and retryable writes are exactly those commands'. A run is a
 * stretch of consecutive ops on one namespace of one kind when {@code ordered} (each run ordered, the first error
 * ending the command), or every op of one namespace and kind in client order when unordered (MongoDB gives unordered
 * ops no order). An update or delete op runs alone unless {@code errorsOnly}, because its result entry needs its own
 * {@code n} and {@code nModified}, which a batched command only reports as totals. In a retryable write
 * ({@code lsid} + {@code txnNumber}) each op keeps its statement id (its index unless {@code stmtIds} says otherwise)
 * in whatever run it lands, so a retried bulkWrite names every op the same way.
 *
 * <p>A run that fails as a whole (a {@link CommandException} from the collection command, e.g. a multi-document
 * upsert without the shard key) is an error entry for its first op when ordered, and for each of its ops when
 * unordered; the other runs still report their results.
 */
@Component
public class BulkWriteCommand implements CommandHandler {
    private static final String RESULTS = "$cmd.bulkWrite";
    /** The generic arguments each collection command of a run carries over from the bulkWrite. */
    /** The fields of {@code bulkWrite} each run's command carries; {@code autocommit} so that a run in a transaction is its statement, not a retryable write. */
    private static final List<String> CARRIED = List.of("lsid", "txnNumber", "autocommit", "writeConcern", "comment", "maxTimeMS");

    private final ClusterInsertCommand inserts;
    private final ClusterUpdateCommand updates;
    private final ClusterDeleteCommand deletes;
    private final RouterCursorManager cursors;

    public BulkWriteCommand(ClusterInsertCommand inserts, ClusterUpdateCommand updates, ClusterDeleteCommand deletes, RouterCursorManager cursors) {
        this.inserts = inserts;
        this.updates = updates;
        this.deletes = deletes;
        this.cursors = cursors;
    }

    @Override
    public String name() {
        return "bulkWrite";
    }

    @Override
    public BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
        Namespaces.checkAdmin(db, "bulkWrite");
        BulkWriteRequest request = BulkWriteRequest.parse(command);
        Results results = new Results(request.errorsOnly());
        for (List<Op> run : runs(request)) {
            boolean failed = execute(opCtx, command, request, run, results);
            if (failed && request.ordered()) {
                break;
            }
        }
        List<BsonDocument> entries = results.entries;
        int batchSize = request.batchSize() == null ? Math.max(1, entries.size()) : request.batchSize();
        BsonDocument reply = cursors.open(db, RESULTS, DocumentStream.of(entries), batchSize, false);
        BsonDocument counts = results.counts();
        counts.forEach(reply::append);
        if (results.writeConcernError != null) {
            reply.append("writeConcernError", results.writeConcernError);
        }
        return reply;
    }

    /** The runs, in the order they execute (see the class comment). */
    private static List<List<Op>> runs(BulkWriteRequest request) {
        boolean alone = !request.errorsOnly();
        List<List<Op>> runs = new ArrayList<>();
        if (request.ordered()) {
            for (Op op : request.ops()) {
                List<Op> last = runs.isEmpty() ? null : runs.getLast();
                if (last != null && sameTarget(last.getFirst(), op) && !(alone && op.kind() != Kind.INSERT)) { // joins the last run
                    last.add(op);
                } else {
                    runs.add(new ArrayList<>(List.of(op)));
                }
            }
            return runs;
        }
        Map<String, List<Op>> groups = new LinkedHashMap<>();
        for (Op op : request.ops()) {
            if (alone && op.kind() != Kind.INSERT) {
                runs.add(List.of(op));
            } else {
                groups.computeIfAbsent(op.kind() + " " + op.namespace().full(), k -> new ArrayList<>()).add(op);
            }
        }
        runs.addAll(groups.values());
        return runs;
    }

    private static boolean sameTarget(Op a, Op b) {
        return a.kind() == b.kind() && a.namespace().equals(b.namespace());
    }

    /** Runs one run as its collection command and records its results; whether any of its ops failed. */
    private boolean execute(OperationContext opCtx, BsonDocument bulkWrite, BulkWriteRequest request, List<Op> run, Results results) {
        Op first = run.getFirst();
        Namespace ns = first.namespace();
        BsonDocument command = new BsonDocument(first.kind().command, new BsonString(ns.collection()));
        BsonArray batch = new BsonArray(run.stream().map(op -> (BsonValue) op.statement()).toList());
        command.append(first.kind().batchField, batch).append("ordered", BsonBoolean.valueOf(request.ordered()));
        for (String field : CARRIED) {
            if (bulkWrite.containsKey(field)) {
                command.append(field, bulkWrite.get(field));
            }
        }
        if (first.kind() != Kind.INSERT && bulkWrite.containsKey("let")) {
            command.append("let", bulkWrite.get("let"));
        }
        if (first.kind() != Kind.DELETE && bulkWrite.containsKey("bypassDocumentValidation")) {
            command.append("bypassDocumentValidation", bulkWrite.get("bypassDocumentValidation"));
        }
        if (request.stmtIds() != null) {
            command.append(StatementIds.STMT_IDS, StatementIds.toBson(run.stream().mapToInt(op -> request.stmtIds()[op.index()]).toArray()));
        }
        BsonDocument reply;
        try {
            reply = switch (first.kind()) {
                case INSERT -> inserts.run(opCtx, ns.db(), command);
                case UPDATE -> updates.run(opCtx, ns.db(), command);
                case DELETE -> deletes.run(opCtx, ns.db(), command);
            };
        } catch (CommandException e) {
            for (Op op : request.ordered() ? List.of(first) : run) {
                results.error(op, e.toReply());
            }
            return true;
        }
        return results.record(run, reply, request.ordered());
    }

    /** The results cursor's entries and the summary counts, filled run by run. */
    private static final class Results {
        private final boolean errorsOnly;
        final List<BsonDocument> entries = new ArrayList<>();
        long nErrors;
        long nInserted;
        long nMatched;
        long nModified;
        long nUpserted;
        long nDeleted;
        @Nullable BsonDocument writeConcernError;

        Results(boolean errorsOnly) {
            this.errorsOnly = errorsOnly;
        }

        /**
         * Records a collection command's reply ({@code {n, nModified?, upserted?, writeErrors?, writeConcernError?}}) for
         * its run; whether a write error came back.
         */
        boolean record(List<Op> run, BsonDocument reply, boolean ordered) {
            if (reply.containsKey("writeConcernError")) {
                writeConcernError = reply.getDocument("writeConcernError");
            }
            Map<Integer, BsonDocument> errors = new HashMap<>();
            for (BsonValue error : reply.getArray("writeErrors", new BsonArray())) {
                errors.put(error.asDocument().getNumber("index").intValue(), error.asDocument());
            }
            int firstError = errors.keySet().stream().mapToInt(Integer::intValue).min().orElse(Integer.MAX_VALUE);
            BsonArray upserted = reply.getArray("upserted", new BsonArray());
            long n = reply.getNumber("n", new BsonInt32(0)).longValue();
            Kind kind = run.getFirst().kind();
            switch (kind) {
                case INSERT -> nInserted += n;
                case UPDATE -> {
                    nMatched += n - upserted.size();
                    nUpserted += upserted.size();
                    nModified += reply.getNumber("nModified", new BsonInt32(0)).longValue();
                }
                case DELETE -> nDeleted += n;
            }
            for (int i = 0; i < run.size(); i++) {
                Op op = run.get(i);
                BsonDocument error = errors.get(i);
                if (error != null) {
                    BsonDocument entry = error.clone();
                    entry.remove("index");
                    error(op, entry);
                } else if (!(ordered && i > firstError)) {
                    success(op, kind, run.size() == 1 ? reply : null, upserted);
                }
            }
            return !errors.isEmpty();
        }

        /** A successful op; {@code reply} is its own command's reply when it ran alone (its counts are its own). */
        private void success(Op op, Kind kind, @Nullable BsonDocument reply, BsonArray upserted) {
            if (errorsOnly) {
                return;
            }
            BsonDocument entry = new BsonDocument("ok", new BsonInt32(1)).append("idx", new BsonInt32(op.index()));
            entry.append("n", kind == Kind.INSERT ? new BsonInt32(1) : count(reply == null ? 0 : reply.getNumber("n").longValue()));
            if (kind == Kind.UPDATE && reply != null) {
                entry.append("nModified", count(reply.getNumber("nModified", new BsonInt32(0)).longValue()));
                if (!upserted.isEmpty()) {
                    entry.append("upserted", new BsonDocument("_id", upserted.get(0).asDocument().get("_id")));
                }
            }
            entries.add(entry);
        }

        /** An error entry {@code {ok: 0, idx, code, codeName, errmsg, ..., n: 0}} from a write error or command error reply. */
        void error(Op op, BsonDocument error) {
            nErrors++;
            BsonDocument entry = new BsonDocument("ok", new BsonInt32(0)).append("idx", new BsonInt32(op.index()));
            for (Map.Entry<String, BsonValue> field : error.entrySet()) {
                if (!Set.of("ok", "index", "$clusterTime", "operationTime").contains(field.getKey())) {
                    entry.append(field.getKey(), field.getValue());
                }
            }
            entries.add(entry.append("n", new BsonInt32(0)));
        }

        BsonDocument counts() {
            return new BsonDocument("nErrors", count(nErrors)).append("nInserted", count(nInserted)).append("nUpserted", count(nUpserted))
                    .append("nMatched", count(nMatched)).append("nModified", count(nModified)).append("nDeleted", count(nDeleted));
        }

        /** An Int32 as MongoDB replies, an Int64 past it (a multi-document update can change more documents). */
        private static BsonValue count(long n) {
            return n <= Integer.MAX_VALUE ? new BsonInt32((int) n) : new BsonInt64(n);
        }
    }
}
