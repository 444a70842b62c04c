package dev.shardstore.router.write;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.session.StatementIds;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.engine.timeseries.Bucket;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.engine.query.Update;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.ShardKeyTargeter;
import dev.shardstore.router.routing.VersionedRouter;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * MongoDB 7.1's single-document writes without the shard key on a sharded collection ({@code updateOne},
 * {@code replaceOne}, {@code deleteOne}, {@code findAndModify} and upserts whose filter does not pin the whole shard key;
 * mongos' {@code mongo/src/mongo/s/write_ops/write_without_shard_key_util.cpp}), in two phases under one routing:
 *
 * <ol>
 *   <li>read: {@code find} with the write's filter, {@code sort}, {@code collation} (the statement's, or findAndModify's),
 *       {@code limit: 1} to the shards whose chunks the filter's shard-key bounds intersect under that collation
 *       ({@link ShardKeyTargeter}); the first document in sort order (under the collation) across their answers is the
 *       one to write, on the shard that returned it (its reads are versioned, so it owns it);</li>
 *   <li>write: the statement on that shard alone, with the shard version the read saw and its filter narrowed to the
 *       document's {@code _id} ({@code {$and: [q, {_id}]}}, unique on a shard), without {@code sort} or
 *       {@code upsert}, under the same collation (so a string {@code _id} equal under it to the found one's may match
 *       instead — it matches {@code q} too, as in MongoDB, whose write phase also keeps the collation).</li>
 * </ol>
 *
 * Exactly one document changes: a split or move between the phases changes the owner's shard version, so the write
 * is refused as StaleConfig and {@link VersionedRouter#run} reruns both phases on fresh routing; a write that matched
 * nothing (the document was changed or deleted in between so it no longer matches) reruns both phases at once, up to
 * {@value #MAX_ATTEMPTS} times (then WriteConflict, 112). An upsert that found nothing writes on the shard owning the
 * document it inserts: the router builds it as the shard would ({@link Update#applyForUpsert}) and pins its
 * {@code _id} in the statement sent, so the shard inserts that very document (the shard's ownership check refuses it if
 * the two disagree). As in MongoDB, two concurrent upserts of one filter may both insert unless a unique index
 * (led by the shard key) forbids it.
 *
 * <p>Not thread-safe; one instance per command.
 */
public final class WriteWithoutShardKey {
    /** Read-and-write rounds for one statement before WriteConflict; each lost round means a concurrent change. */
    static final int MAX_ATTEMPTS = 20;

    /** A write's outcome: the shard that ran it and its reply (a write reply, possibly an error reply). */
    record Outcome(String shard, BsonDocument reply) {}

    private final VersionedRouter router;
    private final String db;
    private final String collection;
    private final BsonDocument command;

    /** @param command the client's command: {@code let}, {@code collation} and the like go with both phases */
    public WriteWithoutShardKey(VersionedRouter router, String db, String collection, BsonDocument command) {
        this.router = router;
        this.db = db;
        this.collection = collection;
        this.command = command;
    }

    /**
     * Runs one statement of an {@code update} ({@code batchField} "updates") or {@code delete} ("deletes") command.
     *
     * @param upsert the statement's {@code upsert}, as validated by the command
     * @param stmtId the statement's id in a retryable write (its client index or the client's), null otherwise: the owner
     *               records it, so a resent command's statement is answered from its history instead of applied again
     * @return the shard's reply to a one-statement batch (so statement index 0), or empty when nothing matched and
     *         nothing was upserted
     * @throws dev.shardstore.router.routing.StaleRoutingException when a shard was stale, for {@link VersionedRouter#run}
     *                                                             to rerun on fresh routing
     */
    Optional<Outcome> writeStatement(CollectionRouting routing, String batchField, BsonDocument statement, boolean upsert,
            @Nullable Integer stmtId) {
        boolean update = batchField.equals("updates");
        Collation collation = Collation.parse(command.getFirstKey() + "." + batchField + ".collation", statement.get("collation"));
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            BsonDocument q = statement.getDocument("q");
            Lookup found = lookup(routing, q, sortOf(statement), statement.get("hint"), collation);
            if (found.error() != null) {
                return Optional.of(found.error());
            }
            BsonDocument pinned = new BsonDocument(); // a mutable copy: a statement from a driver's sequence is raw
            pinned.putAll(statement);
            pinned.remove("sort");
            pinned.remove("hint"); // the _id index serves the pinned filter; a client's hint was used by the read
            String shard;
            Match match = found.match();
            if (match != null) {
                shard = match.shard();
                pinned.put("q", pinnedToId(q, idOf(match.document())));
                if (update) {
                    pinned.put("upsert", BsonBoolean.FALSE);
                }
            } else if (update && upsert) {
                // ClusterUpdateCommand refuses a statement without u before anything is targeted
                BsonValue u = Objects.requireNonNull(statement.get("u"), "update statement without u");
                BsonDocument inserted = upsertDocument(q, u, arrayFiltersOf(statement), statement.get("c"), collation);
                shard = ownerOf(routing, inserted);
                pinned.put("q", pinnedToId(q, idOf(inserted)));
            } else {
                return Optional.empty();
            }
            BsonDocument forShard = command.clone();
            forShard.put(batchField, new BsonArray(List.of(pinned)));
            if (stmtId != null) {
                forShard.remove(StatementIds.STMT_ID);
                forShard.put(StatementIds.STMT_IDS, StatementIds.toBson(new int[] {stmtId}));
            }
            BsonDocument reply = router.send(routing, shard, db, forShard);
            if (ErrorReplies.isError(reply) || reply.getNumber("n", new BsonInt32(0)).intValue() > 0 || reply.containsKey("writeErrors")
                    || reply.containsKey("upserted")) {
                return Optional.of(new Outcome(shard, reply));
            }
        }
        throw conflict();
    }

    /**
     * Runs a {@code findAndModify} whose {@code query} does not pin the shard key.
     *
     * @param upsert the command's {@code upsert}, as validated by the command
     * @return the owner's reply, or a reply with {@code value: null, lastErrorObject: {n: 0}} when nothing matched and
     *         nothing was upserted; a shard's error reply as it is
     */
    public BsonDocument findAndModify(CollectionRouting routing, boolean upsert) {
        BsonDocument query = command.getDocument("query", new BsonDocument());
        Collation collation = Collation.parse("findAndModify.collation", command.get("collation"));
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            Lookup found = lookup(routing, query, sortOf(command), command.get("hint"), collation);
            if (found.error() != null) {
                return found.error().reply();
            }
            BsonDocument pinned = command.clone();
            pinned.remove("sort");
            pinned.remove("hint");
            String shard;
            Match match = found.match();
            if (match != null) {
                shard = match.shard();
                pinned.put("query", pinnedToId(query, idOf(match.document())));
                pinned.put("upsert", BsonBoolean.FALSE);
            } else if (upsert && command.containsKey("update")) {
                BsonDocument inserted = upsertDocument(query, command.get("update"), arrayFiltersOf(command), null, collation);
                shard = ownerOf(routing, inserted);
                pinned.put("query", pinnedToId(query, idOf(inserted)));
            } else {
                return Replies.ok(new BsonDocument("lastErrorObject", new BsonDocument("n", new BsonInt32(0))
                        .append("updatedExisting", BsonBoolean.FALSE)).append("value", BsonNull.VALUE));
            }
            BsonDocument reply = router.send(routing, shard, db, pinned);
            if (ErrorReplies.isError(reply) || reply.getDocument("lastErrorObject", new BsonDocument()).getNumber("n", new BsonInt32(0)).intValue() > 0) {
                return reply;
            }
        }
        throw conflict();
    }

    /** The read phase's answer: the first matching document, nothing (both null), or a shard's error as the outcome. */
    private record Lookup(@Nullable Match match, @Nullable Outcome error) {}

    /** The first document matching the read phase's filter and the shard it is on. */
    private record Match(String shard, BsonDocument document) {}

    /**
     * The read phase: the first document matching {@code filter} in {@code sort} order across the shards the filter
     * targets, both under the write's {@code collation} (the statement's, or findAndModify's), as the write compares.
     */
    private Lookup lookup(CollectionRouting routing, BsonDocument filter, @Nullable BsonDocument sort, @Nullable BsonValue hint,
            Collation collation) {
        BsonDocument find = new BsonDocument("find", new BsonString(collection)).append("filter", filter)
                .append("limit", new BsonInt32(1)).append("singleBatch", BsonBoolean.TRUE);
        if (sort != null && !sort.isEmpty()) {
            find.append("sort", sort);
        }
        if (command.containsKey("let")) {
            find.append("let", command.get("let"));
        }
        if (!collation.isSimple()) {
            find.append("collation", collation.toDocument());
        }
        if (hint != null) {
            find.append("hint", hint);
        }
        List<String> targets = ShardKeyTargeter.shards(routing, filter, collation);
        Map<String, BsonDocument> replies = router.sendAll(routing, targets, db, shard -> find);
        Comparator<BsonDocument> order = sort != null && !sort.isEmpty() ? Sort.parse(sort, collation).comparator() : (a, b) -> 0;
        Match best = null;
        for (Map.Entry<String, BsonDocument> e : replies.entrySet()) {
            BsonDocument reply = e.getValue();
            if (ErrorReplies.isError(reply)) {
                return new Lookup(null, new Outcome(e.getKey(), reply));
            }
            for (BsonValue doc : reply.getDocument("cursor").getArray("firstBatch")) {
                if (best == null || order.compare(doc.asDocument(), best.document()) < 0) {
                    best = new Match(e.getKey(), doc.asDocument());
                }
            }
        }
        return new Lookup(best, null);
    }

    /**
     * The {@code sort} of a statement or findAndModify: it picks the document, and the write phase goes without it, so a
     * malformed one is refused here rather than dropped.
     *
     * @throws CommandException TypeMismatch when it is not a document
     */
    private static @Nullable BsonDocument sortOf(BsonDocument holder) {
        BsonValue sort = holder.get("sort");
        if (sort != null && !sort.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'sort' must be a document, not " + sort.getBsonType());
        }
        return sort == null ? null : sort.asDocument();
    }

    /** The {@code arrayFilters} an upsert's document is built with; a malformed value is left to the shard to refuse. */
    private static BsonArray arrayFiltersOf(BsonDocument holder) {
        return holder.isArray("arrayFilters") ? holder.getArray("arrayFilters") : new BsonArray();
    }

    /**
     * The shard owning the document an upsert inserts: on a time-series collection, the owner of the new bucket the
     * measurement would open ({@link Bucket#routingDocument}), as inserts are routed.
     */
    private static String ownerOf(CollectionRouting routing, BsonDocument inserted) {
        // only a statement on a sharded collection is targeted as a write without the shard key
        RoutingTable table = Objects.requireNonNull(routing.table(), "a write without the shard key on an unsharded collection");
        TimeseriesOptions timeseries = table.collection().timeseriesFields();
        return table.chunkFor(timeseries == null ? inserted : Bucket.routingDocument(timeseries, inserted)).shard();
    }

    /** The {@code _id} of a document a shard read (no projection) or of an upsert's ({@link Update#applyForUpsert} gives one). */
    private static BsonValue idOf(BsonDocument document) {
        return Objects.requireNonNull(document.get("_id"), "document without _id");
    }

    /** {@code {$and: [q, {_id: id}]}}: the write matches only that document, and only while it still matches {@code q}. */
    private static BsonDocument pinnedToId(BsonDocument q, BsonValue id) {
        return new BsonDocument("$and", new BsonArray(List.of(q, new BsonDocument("_id", id))));
    }

    /** The document an upsert of {@code u} with filter {@code q} inserts under {@code collation}, as the shard builds it. */
    private BsonDocument upsertDocument(BsonDocument q, BsonValue u, BsonArray arrayFilters, @Nullable BsonValue constants,
            Collation collation) {
        CommandVariables variables = CommandVariables.parse(command.get("let"), "let").withConstants(constants, "c");
        Update update = Update.parse(u, arrayFilters.getValues(), variables, collation);
        return update.applyForUpsert(Update.seedFromEqualities(Filter.parse(q, variables, collation).equalities()));
    }

    private CommandException conflict() {
        return new CommandException(ErrorCode.WriteConflict, "a single write without the shard key on " + db + "." + collection
                + " lost " + MAX_ATTEMPTS + " races in a row to concurrent changes of the matching documents; retry it");
    }
}
