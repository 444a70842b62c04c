package dev.shardstore.router.query;

import dev.shardstore.engine.spill.MemoryBudgets;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.engine.aggregate.CollectionSource;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Projection;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.router.cursor.DocumentStream;
import dev.shardstore.router.cursor.MergingStream;
import dev.shardstore.router.cursor.RouterCursorManager;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.ShardKeyTargeter;
import dev.shardstore.router.routing.StaleRoutingException;
import dev.shardstore.router.routing.VersionedRouter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.springframework.stereotype.Component;

/**
 * The read path of the router (mongos's {@code ClusterFind}, {@code ClusterAggregate}, cluster count and
 * distinct): each statement resolves the collection's routing through {@link VersionedRouter} (so a stale
 * shard makes it rerun on fresh routing) and targets the shards whose chunks the filter's shard-key bounds
 * intersect ({@link ShardKeyTargeter}); an unsharded collection is its primary shard. A statement that targets
 * one shard is sent to it as the client wrote it and its reply passed on (a find's batch as the shard's bytes,
 * {@link VersionedRouter#sendForwarding}); one that targets several is rewritten
 * for the shards and merged here:
 * <ul>
 *   <li>find: each shard gets {@code limit: skip + limit}, {@code batchSize: skip + batchSize} and no {@code skip};
 *       the router merges the shard cursors ({@link MergingStream}, merge-sorted by {@code sort}, pulling shard
 *       batches only as its buffers run dry) and applies skip and limit. With a sort and a projection, the shards
 *       return whole documents and the router projects after merging, so a sort key the projection removes is
 *       still there to merge by;</li>
 *   <li>count: see {@link ShardResults#shardCount}; distinct: the union of the shards' values;</li>
 *   <li>aggregate: split by {@link PipelineSplit}; the router merges the shards' cursors and runs the merge part
 *       with the query engine, in memory, both under the aggregate's {@code collation} (sent to the shards with the
 *       command; the merge sort and the merge part's {@code $group}, {@code $sort}, ... compare strings under it too) ({@code $lookup} there reads the foreign collection through this router);
 *       a pipeline without merge stages streams from the shard cursors. A pipeline targeting one shard runs whole
 *       there, {@code $lookup} included (the shard reads its own copy of the foreign collection).</li>
 * </ul>
 * Orphans are filtered by the shards themselves (the versioned requests make them apply their filtering
 * metadata). A database that does not exist reads as empty.
 */
@Component
public class ShardedReads {
    /** MongoDB's default first batch size of find and aggregate. */
    public static final int DEFAULT_BATCH_SIZE = 101;
    private final VersionedRouter router;
    private final RouterCursorManager cursors;
    private final MemoryBudgets budgets;

    public ShardedReads(VersionedRouter router, RouterCursorManager cursors, MemoryBudgets budgets) {
        this.router = router;
        this.cursors = cursors;
        this.budgets = budgets;
    }

    /**
     * {@code find}: {@code {find, filter?, sort?, projection?, skip?, limit?, batchSize?, singleBatch?, ...}} →
     * {@code {cursor: {firstBatch, id, ns}, ok: 1}}.
     *
     * @throws CommandException TypeMismatch/BadValue naming a malformed option; the shards' errors
     */
    public BsonDocument find(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        BsonDocument filter = args.optionalDocument(command, "filter", "filter");
        BsonDocument sortSpec = args.optionalDocument(command, "sort", "sort");
        BsonDocument projectionSpec = args.optionalDocument(command, "projection", "projection");
        long skip = args.optionalNonNegative("skip", 0);
        long limit = args.optionalNonNegative("limit", 0);
        int batchSize = intOf(args.optionalNonNegative("batchSize", DEFAULT_BATCH_SIZE));
        boolean singleBatch = args.optionalBoolean(command, "singleBatch", "singleBatch", false);
        Collation collation = Collation.parse("find.collation", command.get("collation")); // goes to the shards as sent
        Sort sort = Sort.parse(sortSpec, collation);
        boolean projectHere = !sortSpec.isEmpty() && !projectionSpec.isEmpty();
        CommandVariables variables = CommandVariables.parse(command.get("let"), "let"); // let goes to the shards as sent
        Projection projection = projectHere ? Projection.parse(projectionSpec) : null;
        return router.run(opCtx, db, collection, false, routing -> {
            List<String> targets = ShardKeyTargeter.shards(routing, filter, collation);
            if (targets.size() == 1) { // the shard's reply goes on as it is: its batch is forwarded as bytes
                return cursors.adopt(opCtx, db, collection, targets.getFirst(), successful(router.sendForwarding(opCtx, routing, targets.getFirst(), db, command)));
            }
            BsonDocument forShards = command.clone();
            forShards.remove("skip");
            if (limit > 0) {
                forShards.put("limit", new BsonInt64(sum(skip, limit)));
            }
            if (skip > 0) { // the router's first batch may need skip + batchSize documents of one shard (all of them with singleBatch)
                forShards.put("batchSize", new BsonInt64(sum(skip, batchSize)));
            }
            if (projectHere) {
                forShards.remove("projection");
            }
            DocumentStream stream = new MergingStream(openCursors(opCtx, routing, targets, db, forShards, true),
                    sortSpec.isEmpty() ? null : sort.comparator(), skip, limit);
            if (projection != null) {
                Filter matcher = Filter.parse(filter, variables, collation); // positional projections ("a.$") need the filter
                stream = stream.map(doc -> projection.apply(doc, matcher));
            }
            return cursors.open(db, collection, stream, batchSize, singleBatch);
        }).orElseGet(() -> Replies.cursor(true, List.of(), 0, db + "." + collection));
    }

    /** {@code count}: {@code {count, query?, skip?, limit?}} → {@code {n, ok: 1}}; 0 for a missing database. */
    public BsonDocument count(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        BsonDocument query = args.optionalDocument(command, "query", "query");
        long skip = args.optionalNonNegative("skip", 0);
        long limit = args.optionalNonNegative("limit", 0);
        Collation collation = Collation.parse("count.collation", command.get("collation"));
        return router.run(opCtx, db, collection, false, routing -> {
            List<String> targets = ShardKeyTargeter.shards(routing, query, collation);
            if (targets.size() == 1) {
                return successful(router.send(opCtx, routing, targets.getFirst(), db, command));
            }
            BsonDocument forShards = ShardResults.shardCount(command, skip, limit);
            return ShardResults.count(router.sendAll(opCtx, routing, targets, db, shard -> forShards).values(), skip, limit);
        }).orElseGet(() -> Replies.ok(new BsonDocument("n", new BsonInt32(0))));
    }

    /** {@code distinct}: {@code {distinct, key, query?}} → {@code {values, ok: 1}}; none for a missing database. */
    public BsonDocument distinct(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        BsonDocument query = args.optionalDocument(command, "query", "query");
        Collation collation = Collation.parse("distinct.collation", command.get("collation"));
        return router.run(opCtx, db, collection, false, routing -> {
            List<String> targets = ShardKeyTargeter.shards(routing, query, collation);
            if (targets.size() == 1) {
                return successful(router.send(opCtx, routing, targets.getFirst(), db, command));
            }
            return ShardResults.distinct(router.sendAll(opCtx, routing, targets, db, shard -> command), collation);
        }).orElseGet(() -> Replies.ok(new BsonDocument("values", new BsonArray())));
    }

    /**
     * {@code aggregate} on a collection: {@code {aggregate, pipeline, cursor: {batchSize?}, let?, collation?}} → a cursor
     * reply. A leading {@code $match} comparing strings of the shard key under a non-simple collation targets every shard,
     * as find does ({@link ShardKeyTargeter#shards(CollectionRouting, BsonDocument, Collation)}).
     *
     * @throws CommandException FailedToParse when {@code cursor} is missing; the engine's pipeline errors; the
     *                          shards' errors
     */
    public BsonDocument aggregate(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        BsonArray pipeline = args.requiredArray("pipeline");
        int batchSize = aggregateBatchSize(args, command);
        CommandVariables variables = CommandVariables.ofCommand(command); // let and collation go to the shards as sent
        Collation collation = variables.collation();
        PipelineSplit.validate(pipeline, variables);
        return router.run(opCtx, db, collection, false, routing -> {
            List<String> targets = ShardKeyTargeter.shards(routing, PipelineSplit.leadingMatch(pipeline), collation);
            if (targets.size() == 1) {
                return cursors.adopt(opCtx, db, collection, targets.getFirst(), successful(router.send(opCtx, routing, targets.getFirst(), db, command)));
            }
            PipelineSplit split = PipelineSplit.of(pipeline);
            BsonDocument forShards = command.clone();
            forShards.put("pipeline", split.shardPipeline());
            forShards.put("cursor", new BsonDocument());
            DocumentStream stream = new MergingStream(openCursors(opCtx, routing, targets, db, forShards, false),
                    split.mergeSort() == null ? null : Sort.parse(split.mergeSort(), collation).comparator(), 0, 0);
            if (split.hasMergeStages()) {
                stream = DocumentStream.of(split.runMerge(stream.toStream(), lookupSource(opCtx, db), variables, budgets.of(command, opCtx::checkForInterrupt)));
            }
            return cursors.open(db, collection, stream, batchSize, false);
        }).orElseGet(() -> Replies.cursor(true, List.of(), 0, db + "." + collection));
    }

    /**
     * Opens {@code command}'s cursor on every target concurrently. When a shard answers an error or a stale
     * version, the cursors the others opened are killed before the error (or the retry) goes on.
     *
     * @param forwarding whether the documents only go on to the client (merged, maybe projected): then every batch,
     *                   the getMores' too, stays raw bytes ({@link VersionedRouter#sendEachForwarding}), read-only
     * @throws StaleRoutingException when a shard's version check failed (the statement is then rerun)
     */
    private List<MergingStream.Source> openCursors(OperationContext opCtx, CollectionRouting routing, List<String> targets, String db, BsonDocument command,
            boolean forwarding) {
        Map<String, BsonDocument> replies = forwarding
                ? router.sendEachForwarding(opCtx, routing, targets, db, shard -> command)
                : router.sendEach(opCtx, routing, targets, db, shard -> command);
        List<MergingStream.Source> opened = new ArrayList<>();
        RuntimeException failure = null;
        for (Map.Entry<String, BsonDocument> e : replies.entrySet()) {
            BsonDocument reply = e.getValue();
            if (!ErrorReplies.isError(reply)) {
                opened.add(cursors.source(opCtx, e.getKey(), db, reply, forwarding));
            } else if (failure == null) {
                failure = StaleRoutingException.isStaleReply(reply) ? new StaleRoutingException(e.getKey(), reply) : ErrorReplies.toException(reply);
            }
        }
        if (failure != null) {
            opened.forEach(s -> s.cursor().kill());
            throw failure;
        }
        return opened;
    }

    /**
     * Where a {@code $lookup} run on the router (a merge part, a database-level aggregate) reads: a routed find of the
     * whole foreign collection of {@code db}, filtered here.
     */
    public CollectionSource lookupSource(OperationContext opCtx, String db) {
        return (foreign, filter) -> readAll(opCtx, db, foreign).stream().filter(filter::matches).toList();
    }

    /** Every document of {@code db.collection}, read through a router cursor to its end. */
    private List<BsonDocument> readAll(OperationContext opCtx, String db, String collection) {
        return drain(db, find(opCtx, db, new BsonDocument("find", new BsonString(collection))));
    }

    /**
     * Every document of a router cursor: the first batch of {@code reply} ({@code {cursor: {firstBatch, id, ns}}}) and
     * the getMores of that cursor (on the collection its {@code ns} names) to its end.
     */
    public List<BsonDocument> drain(String db, BsonDocument reply) {
        BsonDocument cursor = reply.getDocument("cursor");
        String ns = cursor.getString("ns").getValue();
        String collection = ns.substring(ns.indexOf('.') + 1);
        List<BsonDocument> all = new ArrayList<>();
        cursor.getArray("firstBatch").forEach(v -> all.add(v.asDocument()));
        long id = cursor.getNumber("id").longValue();
        while (id != 0) {
            BsonDocument next = cursors.getMore(db, new BsonDocument("getMore", new BsonInt64(id)).append("collection", new BsonString(collection)))
                    .getDocument("cursor");
            next.getArray("nextBatch").forEach(v -> all.add(v.asDocument()));
            id = next.getNumber("id").longValue();
        }
        return all;
    }

    private static BsonDocument successful(BsonDocument reply) {
        if (ErrorReplies.isError(reply)) {
            throw ErrorReplies.toException(reply);
        }
        return reply;
    }

    private static long sum(long a, long b) {
        return a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b;
    }

    /**
     * An {@code aggregate}'s first batch size: {@code cursor.batchSize}, else {@link #DEFAULT_BATCH_SIZE}.
     *
     * @throws CommandException FailedToParse when {@code cursor} is missing (MongoDB requires it, explain aside);
     *                          TypeMismatch/BadValue naming {@code cursor} or {@code cursor.batchSize}
     */
    public static int aggregateBatchSize(CommandArgs args, BsonDocument command) {
        if (!command.containsKey("cursor")) {
            throw new CommandException(ErrorCode.FailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument");
        }
        BsonDocument cursor = args.optionalDocument(command, "cursor", "cursor");
        return cursor.containsKey("batchSize") ? intOf(args.nonNegative(cursor.get("batchSize"), "cursor.batchSize")) : DEFAULT_BATCH_SIZE;
    }

    private static int intOf(long n) {
        return (int) Math.min(Integer.MAX_VALUE, n);
    }
}
