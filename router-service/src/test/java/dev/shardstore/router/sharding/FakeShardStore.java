package dev.shardstore.router.sharding;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.engine.aggregate.Pipeline;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.engine.query.Update;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonValue;

/**
 * One fake shard's documents of one namespace, answering {@code find} (filter, sort, limit), {@code aggregate}, {@code update},
 * {@code delete} and {@code findAndModify} with the query engine, as a real shard would (its single writes take the
 * first match in {@code sort} order; no indexes, no orphan filtering: tests keep each document on its owner). For
 * the router's two-phase writes without the shard key, where what matters is which documents change. Synchronized:
 * one command at a time, as a shard's per-document atomicity.
 */
final class FakeShardStore {
    private final List<BsonDocument> documents = new ArrayList<>();

    synchronized void add(BsonDocument document) {
        documents.add(document.clone());
    }

    /** Removes and returns the documents {@code leaving} accepts (those leaving with a moved chunk). */
    synchronized List<BsonDocument> removeIf(Predicate<BsonDocument> leaving) {
        List<BsonDocument> gone = documents.stream().filter(leaving).toList();
        documents.removeAll(gone);
        return gone;
    }

    synchronized List<BsonDocument> documents() {
        return documents.stream().map(BsonDocument::clone).toList();
    }

    synchronized BsonDocument find(BsonDocument cmd, String ns) {
        List<BsonDocument> matching = matching(cmd.getDocument("filter", new BsonDocument()), cmd.getDocument("sort", null));
        int limit = cmd.getNumber("limit", new BsonInt32(0)).intValue();
        return Replies.cursor(true, limit > 0 ? matching.subList(0, Math.min(limit, matching.size())) : matching, 0, ns);
    }

    /** The pipeline (without {@code $lookup} sources) over the stored documents, in one batch. */
    synchronized BsonDocument aggregate(BsonDocument cmd, String ns) {
        Pipeline pipeline = Pipeline.parse(cmd.getArray("pipeline"), (collection, filter) -> List.of(), CommandVariables.ofCommand(cmd));
        return Replies.cursor(true, pipeline.run(documents.stream().filter(pipeline.scanFilter()::matches).toList()), 0, ns);
    }

    synchronized BsonDocument update(BsonArray statements) {
        int n = 0;
        int modified = 0;
        BsonArray upserted = new BsonArray();
        for (int i = 0; i < statements.size(); i++) {
            BsonDocument s = statements.get(i).asDocument();
            boolean multi = s.getBoolean("multi", BsonBoolean.FALSE).getValue();
            Update update = Update.parse(s.get("u"), List.of(), CommandVariables.withoutLet(), Collation.SIMPLE);
            List<BsonDocument> matching = matching(s.getDocument("q"), s.getDocument("sort", null));
            for (BsonDocument doc : multi ? matching : matching.stream().limit(1).toList()) {
                replace(doc, update.apply(doc));
                n++;
                modified++;
            }
            if (matching.isEmpty() && s.getBoolean("upsert", BsonBoolean.FALSE).getValue()) {
                BsonDocument inserted = update.applyForUpsert(Update.seedFromEqualities(Filter.parse(s.getDocument("q")).equalities()));
                documents.add(inserted);
                upserted.add(new BsonDocument("index", new BsonInt32(i)).append("_id", inserted.get("_id")));
                n++;
            }
        }
        BsonDocument reply = new BsonDocument("n", new BsonInt32(n)).append("nModified", new BsonInt32(modified));
        if (!upserted.isEmpty()) {
            reply.append("upserted", upserted);
        }
        return Replies.ok(reply);
    }

    synchronized BsonDocument delete(BsonArray statements) {
        int n = 0;
        for (BsonValue statement : statements) {
            BsonDocument s = statement.asDocument();
            List<BsonDocument> matching = matching(s.getDocument("q"), null);
            for (BsonDocument doc : s.getNumber("limit").intValue() == 0 ? matching : matching.stream().limit(1).toList()) {
                documents.remove(doc);
                n++;
            }
        }
        return Replies.ok(new BsonDocument("n", new BsonInt32(n)));
    }

    synchronized BsonDocument findAndModify(BsonDocument cmd) {
        Optional<BsonDocument> match = matching(cmd.getDocument("query", new BsonDocument()), cmd.getDocument("sort", null)).stream().findFirst();
        if (cmd.getBoolean("remove", BsonBoolean.FALSE).getValue()) {
            match.ifPresent(documents::remove);
            return Replies.ok(new BsonDocument("lastErrorObject", new BsonDocument("n", new BsonInt32(match.isPresent() ? 1 : 0)))
                    .append("value", match.<BsonValue>map(BsonDocument::clone).orElse(BsonNull.VALUE)));
        }
        Update update = Update.parse(cmd.get("update"), List.of(), CommandVariables.withoutLet(), Collation.SIMPLE);
        if (match.isPresent()) {
            BsonDocument after = update.apply(match.get());
            replace(match.get(), after);
            return Replies.ok(new BsonDocument("lastErrorObject", new BsonDocument("n", new BsonInt32(1)).append("updatedExisting", BsonBoolean.TRUE))
                    .append("value", cmd.getBoolean("new", BsonBoolean.FALSE).getValue() ? after : match.get()));
        }
        if (!cmd.getBoolean("upsert", BsonBoolean.FALSE).getValue()) {
            return Replies.ok(new BsonDocument("lastErrorObject", new BsonDocument("n", new BsonInt32(0))).append("value", BsonNull.VALUE));
        }
        BsonDocument inserted = update.applyForUpsert(Update.seedFromEqualities(Filter.parse(cmd.getDocument("query")).equalities()));
        documents.add(inserted);
        return Replies.ok(new BsonDocument("lastErrorObject", new BsonDocument("n", new BsonInt32(1)).append("updatedExisting", BsonBoolean.FALSE)
                .append("upserted", inserted.get("_id"))).append("value", cmd.getBoolean("new", BsonBoolean.FALSE).getValue() ? inserted : BsonNull.VALUE));
    }

    private List<BsonDocument> matching(BsonDocument filter, BsonDocument sort) {
        Filter f = Filter.parse(filter);
        Comparator<BsonDocument> order = sort != null && !sort.isEmpty() ? Sort.parse(sort).comparator() : (a, b) -> 0;
        return documents.stream().filter(f::matches).sorted(order).toList();
    }

    private void replace(BsonDocument before, BsonDocument after) {
        documents.set(documents.indexOf(before), after);
    }
}
