package dev.shardstore.router.query;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.VersionedRouter;
import dev.shardstore.router.write.BatchedWrite;
import dev.shardstore.support.command.CommandRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * An aggregate whose last stage is {@code $out} or {@code $merge} ({@link OutputStage}), run on the router: the pipeline
 * before that stage is read through {@link ShardedReads#aggregate} (shards, split, merge part), and its result is
 * written through the router's own commands ({@code insert}, {@code update}, {@code createIndexes}, {@code drop}), so
 * every write is routed, versioned and owned like a client's. The reply is MongoDB's: an empty first batch, cursor 0.
 *
 * <p>{@code $out} (MongoDB's {@code DocumentSourceOut}, {@code mongo/src/mongo/db/pipeline/document_source_out.cpp}): refused with Location28769 when the target is
 * sharded. The documents go into {@code <db>.tmp.agg_out.<uuid>} (an unsharded collection, so on the target
 * database's primary shard), which first gets the target's indexes; then the primary renames it over the target in one
 * PostgreSQL transaction ({@code _shardsvrRenameCollection} with {@code dropTarget: true}), so a reader sees the old
 * target or the new one, never a mix or nothing. On any failure the temporary collection is dropped.
 *
 * <p>{@code $merge} (MongoDB's {@code DocumentSourceMerge}, {@code mongo/src/mongo/db/pipeline/document_source_merge.cpp}): each document is matched on {@code on} (default
 * {@code _id}; for a sharded target the shard key fields and {@code _id}). A given {@code on} needs a unique index on
 * exactly those fields (Location51183); a document whose {@code on} value is missing, null or an array is Location51132.
 * whenMatched replace/merge/keepExisting are update statements (replacement, {@code $set}, {@code $setOnInsert}) with
 * {@code upsert} when whenNotMatched is insert; {@code fail} is a plain insert (DuplicateKey 11000 on a match); a
 * pipeline is an update per document with {@code let: {new: <document>, ...let}}, followed by an insert of the document
 * when nothing matched and whenNotMatched is insert. whenNotMatched fail answers MergeStageNoMatchingDocument (13113)
 * when a statement matched nothing. A write error fails the command with the write error's code and message; documents
 * written before it stay written, as in MongoDB.
 *
 * <p>Collation: the pipeline before the output stage runs under the aggregate's {@code collation} ({@link ShardedReads}).
 * {@code $out} writes what it read, so it takes any collation; {@code $merge} with a non-simple one is refused
 * (NotImplemented (238) naming {@code aggregate.collation}) before anything is read: its {@code on} matching is an
 * update's binary equality, and MongoDB would match the {@code on} fields under the collation.
 */
@Component
public class AggregateOutput {
    private static final int BATCH = 500;
    private final ShardedReads reads;
    private final VersionedRouter router;
    private final ObjectProvider<CommandRegistry> registry;

    public AggregateOutput(ShardedReads reads, VersionedRouter router, ObjectProvider<CommandRegistry> registry) {
        this.reads = reads;
        this.router = router;
        this.registry = registry;
    }

    /**
     * Runs {@code command} (an aggregate on {@code db} whose pipeline {@link OutputStage#endsWithOutput}).
     *
     * @param read runs the aggregate of the stages before the output stage (a view resolved as for any read) and
     *             answers its router cursor reply
     * @return {@code {cursor: {firstBatch: [], id: 0, ns}, ok: 1}}
     * @throws CommandException the stage's parse errors, the read's errors, the write errors described above
     */
    public BsonDocument aggregate(OperationContext opCtx, String db, BsonDocument command, UnaryOperator<BsonDocument> read) {
        BsonArray pipeline = command.getArray("pipeline");
        OutputStage stage = OutputStage.parse(db, pipeline);
        CommandVariables variables = CommandVariables.ofCommand(command);
        if (stage.name().equals("$merge") && !variables.collation().isSimple()) {
            throw new CommandException(ErrorCode.NotImplemented, "BSON field 'aggregate.collation': a collation other than"
                    + " {locale: \"simple\"} is not supported with $merge: its 'on' fields are matched in binary order");
        }
        String collection = command.getString("aggregate").getValue();
        BsonDocument reading = command.clone();
        reading.put("pipeline", OutputStage.without(pipeline));
        reading.put("cursor", new BsonDocument());
        List<BsonDocument> documents = reads.drain(db, read.apply(reading));
        if (stage.name().equals("$out")) {
            out(opCtx, stage.target(), documents);
        } else {
            merge(opCtx, stage, documents, variables);
        }
        return Replies.cursor(true, List.of(), 0, db + "." + collection);
    }

    private void out(OperationContext opCtx, Namespace target, List<BsonDocument> documents) {
        Optional<CollectionRouting> routing = router.run(opCtx, target.db(), target.collection(), false, r -> r);
        if (routing.isPresent() && routing.get().isSharded()) {
            throw new CommandException(ErrorCode.Location28769, target.full() + " cannot be sharded");
        }
        String temp = "tmp.agg_out." + UUID.randomUUID();
        try {
            // the replaced collection's default collation and indexes (each with its own collation) carry over
            BsonDocument create = new BsonDocument("create", new BsonString(temp));
            defaultCollation(opCtx, target).ifPresent(collation -> create.append("collation", collation));
            run(opCtx, target.db(), create);
            BsonArray indexes = new BsonArray();
            for (BsonDocument index : listIndexes(opCtx, target)) {
                if (!index.getString("name").getValue().equals("_id_")) {
                    indexes.add(Collation.indexSpecToCopy(index));
                }
            }
            if (!indexes.isEmpty()) {
                run(opCtx, target.db(), new BsonDocument("createIndexes", new BsonString(temp)).append("indexes", indexes));
            }
            for (int from = 0; from < documents.size(); from += BATCH) {
                List<BsonDocument> batch = documents.subList(from, Math.min(documents.size(), from + BATCH));
                written(run(opCtx, target.db(), new BsonDocument("insert", new BsonString(temp)).append("documents", new BsonArray(batch))));
            }
            BsonDocument rename = new BsonDocument("_shardsvrRenameCollection", new BsonString(temp))
                    .append("to", new BsonString(target.collection())).append("dropTarget", BsonBoolean.TRUE);
            router.run(opCtx, target.db(), temp, false, r -> successful(router.send(r, r.database().primary(), target.db(), rename)));
        } catch (RuntimeException e) {
            try {
                run(opCtx, target.db(), new BsonDocument("drop", new BsonString(temp)));
            } catch (RuntimeException dropFailure) {
                e.addSuppressed(dropFailure);
            }
            throw e;
        }
    }

    private void merge(OperationContext opCtx, OutputStage stage, List<BsonDocument> documents, CommandVariables variables) {
        Namespace target = stage.target();
        Optional<CollectionRouting> routing = router.run(opCtx, target.db(), target.collection(), false, r -> r);
        List<String> on = stage.on() != null ? stage.on() : defaultOn(routing.orElse(null));
        // OutputStage.parse gives a $merge both modes; only $out has none
        String whenMatched = Objects.requireNonNull(stage.whenMatched(), "$merge whenMatched");
        String whenNotMatched = Objects.requireNonNull(stage.whenNotMatched(), "$merge whenNotMatched");
        if (stage.on() != null && !(on.equals(List.of("_id")) || hasUniqueIndex(opCtx, target, on))) {
            throw new CommandException(ErrorCode.Location51183, "Cannot find index to verify that join fields will be unique");
        }
        List<BsonDocument> statements = new ArrayList<>();
        for (BsonDocument source : documents) {
            BsonDocument doc = BatchedWrite.withId(source);
            BsonDocument key = key(doc, on);
            BsonArray matchedPipeline = stage.matchedPipeline();
            if (matchedPipeline != null) {
                mergeWithPipeline(opCtx, stage, matchedPipeline, whenNotMatched, doc, key, variables);
                continue;
            }
            boolean upsert = whenNotMatched.equals("insert");
            switch (whenMatched) {
                case "fail" -> statements.add(doc);
                case "replace" -> statements.add(update(key, doc, upsert));
                case "merge" -> statements.add(update(key, new BsonDocument("$set", doc), upsert));
                default -> statements.add(update(key, new BsonDocument("$setOnInsert", doc), upsert)); // keepExisting
            }
        }
        for (int from = 0; from < statements.size(); from += BATCH) {
            List<BsonDocument> batch = statements.subList(from, Math.min(statements.size(), from + BATCH));
            BsonDocument reply = whenMatched.equals("fail")
                    ? run(opCtx, target.db(), new BsonDocument("insert", new BsonString(target.collection())).append("documents", new BsonArray(batch)))
                    : run(opCtx, target.db(), new BsonDocument("update", new BsonString(target.collection())).append("updates", new BsonArray(batch)));
            written(reply);
            if (whenNotMatched.equals("fail") && reply.getNumber("n").intValue() < batch.size()) {
                throw noMatch();
            }
        }
    }

    /** whenMatched: [pipeline]: one update per document with {@code $$new} and the stage's {@code let} (evaluated on it). */
    private void mergeWithPipeline(OperationContext opCtx, OutputStage stage, BsonArray matchedPipeline, String whenNotMatched,
            BsonDocument doc, BsonDocument key, CommandVariables variables) {
        Namespace target = stage.target();
        BsonDocument let = new BsonDocument("new", literal(doc));
        BsonDocument stageLet = stage.let();
        if (stageLet != null) {
            BsonDocument evaluated = PipelineSplit.run(new BsonArray(List.of(new BsonDocument("$replaceWith", stageLet))), List.of(doc),
                    (c, f) -> List.of(), variables).getFirst();
            evaluated.forEach((name, value) -> let.put(name, literal(value)));
        }
        BsonDocument reply = run(opCtx, target.db(), new BsonDocument("update", new BsonString(target.collection()))
                .append("updates", new BsonArray(List.of(new BsonDocument("q", key).append("u", matchedPipeline))))
                .append("let", let));
        written(reply);
        if (reply.getNumber("n").intValue() == 0) {
            switch (whenNotMatched) {
                case "fail" -> throw noMatch();
                case "insert" -> written(run(opCtx, target.db(), new BsonDocument("insert", new BsonString(target.collection()))
                        .append("documents", new BsonArray(List.of(doc)))));
                default -> { } // discard
            }
        }
    }

    private static BsonDocument update(BsonDocument key, BsonDocument u, boolean upsert) {
        return new BsonDocument("q", key).append("u", u).append("upsert", BsonBoolean.valueOf(upsert));
    }

    private static BsonDocument literal(BsonValue value) {
        return new BsonDocument("$literal", value);
    }

    private static CommandException noMatch() {
        return new CommandException(ErrorCode.MergeStageNoMatchingDocument,
                "$merge could not find a matching document in the target collection for at least one document in the source collection");
    }

    /** The target's {@code _id}, or for a sharded target its shard key fields and {@code _id} (MongoDB's default {@code on}). */
    private static List<String> defaultOn(@Nullable CollectionRouting routing) {
        RoutingTable table = routing == null ? null : routing.table();
        if (table == null) {
            return List.of("_id");
        }
        List<String> on = new ArrayList<>(table.shardKey().pattern().keySet());
        if (!on.contains("_id")) {
            on.add("_id");
        }
        return on;
    }

    private boolean hasUniqueIndex(OperationContext opCtx, Namespace target, List<String> on) {
        Set<String> fields = new HashSet<>(on);
        for (BsonDocument index : listIndexes(opCtx, target)) {
            boolean unique = index.getBoolean("unique", BsonBoolean.FALSE).getValue() && !index.containsKey("partialFilterExpression");
            if (unique && !index.getBoolean("sparse", BsonBoolean.FALSE).getValue() && index.getDocument("key").keySet().equals(fields)) {
                return true;
            }
        }
        return false;
    }

    /** The equality filter on {@code on}'s values of {@code doc}. */
    private static BsonDocument key(BsonDocument doc, List<String> on) {
        BsonDocument key = new BsonDocument();
        for (String path : on) {
            BsonValue value = doc;
            for (String part : path.split("\\.")) {
                value = value != null && value.isDocument() ? value.asDocument().get(part) : null;
            }
            if (value == null || value.isNull() || value.isArray() || value.getBsonType() == BsonType.UNDEFINED) {
                throw new CommandException(ErrorCode.Location51132,
                        "$merge write error: 'on' field cannot be missing, null, undefined or an array");
            }
            key.append(path, value);
        }
        return key;
    }

    /** The collection's default collation ({@code options.collation} of listCollections), empty when it has none or is missing. */
    private Optional<BsonValue> defaultCollation(OperationContext opCtx, Namespace ns) {
        BsonDocument reply = run(opCtx, ns.db(), new BsonDocument("listCollections", new BsonInt32(1))
                .append("filter", new BsonDocument("name", new BsonString(ns.collection()))));
        return reads.drain(ns.db(), reply).stream().findFirst()
                .map(entry -> entry.getDocument("options", new BsonDocument()).get("collation"));
    }

    private List<BsonDocument> listIndexes(OperationContext opCtx, Namespace ns) {
        BsonDocument reply;
        try {
            reply = run(opCtx, ns.db(), new BsonDocument("listIndexes", new BsonString(ns.collection())));
        } catch (CommandException e) {
            if (e.code() == ErrorCode.NamespaceNotFound) {
                return List.of(); // a missing collection has no index to copy or check
            }
            throw e;
        }
        return reads.drain(ns.db(), reply);
    }

    private BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
        return successful(registry.getObject().run(opCtx, db, command));
    }

    /** Fails with the first write error of a write reply, as MongoDB reports a $out/$merge write error. */
    private static void written(BsonDocument reply) {
        if (reply.containsKey("writeErrors") && !reply.getArray("writeErrors").isEmpty()) {
            BsonDocument error = reply.getArray("writeErrors").get(0).asDocument();
            throw new CommandException(ErrorCode.ofNumber(error.getNumber("code").intValue()), error.getString("errmsg").getValue());
        }
    }

    private static BsonDocument successful(BsonDocument reply) {
        if (ErrorReplies.isError(reply)) {
            throw ErrorReplies.toException(reply);
        }
        return reply;
    }
}
