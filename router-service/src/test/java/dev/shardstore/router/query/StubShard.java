package dev.shardstore.router.query;

import dev.shardstore.router.testing.StubPeer;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.engine.aggregate.Pipeline;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.DistinctValues;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Projection;
import dev.shardstore.engine.query.Sort;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The shard side of the read commands over an in-memory collection {@code db.c}, computed with the query engine
 * as the shard service does: find (filter, sort, projection, skip, limit, batchSize, singleBatch), getMore,
 * killCursors, count, distinct, aggregate, explain and {@code _shardsvrDataDistribution}. Versions are ignored.
 */
public final class StubShard {
    public final String name;
    public final List<BsonDocument> documents = new ArrayList<>();
    /** Collections other than {@code c} (unsharded ones, on the primary shard). */
    public final Map<String, List<BsonDocument>> others = new ConcurrentHashMap<>();
    final Map<Long, Deque<BsonDocument>> cursors = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(1000);
    public final StubPeer peer;
    /** How many of the next finds to answer with StaleConfig (as a shard whose filtering metadata moved on). */
    final AtomicInteger staleFinds = new AtomicInteger();

    public StubShard(String name) {
        this.name = name;
        this.peer = new StubPeer((db, cmd) -> answer(cmd));
    }

    private List<BsonDocument> collection(BsonDocument cmd) {
        String name = cmd.get(cmd.getFirstKey()).isString() ? cmd.getString(cmd.getFirstKey()).getValue() : "c";
        return name.equals("c") ? documents : others.getOrDefault(name, List.of());
    }

    private List<BsonDocument> matching(BsonDocument cmd, BsonDocument filter) {
        Filter f = Filter.parse(filter == null ? new BsonDocument() : filter, variables(cmd));
        return collection(cmd).stream().filter(f::matches).toList();
    }

    /** The command's variables, as a shard reads them ({@code let}, {@code $$NOW} and the collation). */
    private static CommandVariables variables(BsonDocument cmd) {
        return CommandVariables.ofCommand(cmd);
    }

    private BsonDocument answer(BsonDocument cmd) {
        if (cmd.getFirstKey().equals("find") && staleFinds.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            ChunkVersion received = ChunkVersion.fromBson(cmd.getDocument(InternalApi.SHARD_VERSION_FIELD));
            CommandException stale = new StaleConfig("db.c", received, received, name).toException();
            return ErrorReplies.errorReply(stale.code(), stale.getMessage(), stale.extraInfo());
        }
        return switch (cmd.getFirstKey()) {
            case "find" -> find(cmd);
            case "getMore" -> {
                long id = cmd.getNumber("getMore").longValue();
                Deque<BsonDocument> rest = cursors.get(id);
                if (rest == null) {
                    yield ErrorReplies.errorReply(dev.shardstore.contracts.error.ErrorCode.CursorNotFound,
                            "cursor " + id + " not found", new BsonDocument());
                }
                yield batch(false, rest, cmd.containsKey("batchSize") ? cmd.getNumber("batchSize").intValue() : 0, id, false);
            }
            case "killCursors" -> {
                cmd.getArray("cursors").forEach(v -> cursors.remove(v.asNumber().longValue()));
                yield Replies.ok();
            }
            case "count" -> {
                long n = matching(cmd, cmd.getDocument("query", null)).size();
                long skip = cmd.containsKey("skip") ? cmd.getNumber("skip").longValue() : 0;
                long limit = cmd.containsKey("limit") ? cmd.getNumber("limit").longValue() : 0;
                n = Math.max(0, n - skip);
                yield Replies.ok(new BsonDocument("n", new BsonInt32((int) (limit > 0 ? Math.min(n, limit) : n))));
            }
            case "distinct" -> {
                DistinctValues values = new DistinctValues(cmd.getString("key").getValue());
                matching(cmd, cmd.getDocument("query", null)).forEach(values::add);
                yield Replies.ok(new BsonDocument("values", new BsonArray(values.values())));
            }
            case "aggregate" -> {
                Pipeline p = Pipeline.parse(cmd.getArray("pipeline"), (c, f) -> List.of(), variables(cmd));
                List<BsonDocument> out = p.run(collection(cmd).stream().filter(p.scanFilter()::matches).toList());
                yield cursor(new ArrayDeque<>(out), cmd.getDocument("cursor").getNumber("batchSize", new BsonInt32(101)).intValue(), false);
            }
            case "explain" -> {
                BsonDocument inner = cmd.getDocument("explain");
                BsonDocument filter = inner.getDocument(inner.getFirstKey().equals("find") ? "filter" : "query", new BsonDocument());
                yield Replies.ok(new BsonDocument("queryPlanner", new BsonDocument("namespace", new BsonString("db.c"))
                        .append("parsedQuery", filter)
                        .append("winningPlan", new BsonDocument("stage", new BsonString("COLLSCAN")))
                        .append("rejectedPlans", new BsonArray()))
                        .append("executionStats", new BsonDocument("executionSuccess", BsonBoolean.TRUE)
                                .append("nReturned", new BsonInt64(matching(inner, filter).size()))
                                .append("executionTimeMillis", new BsonInt64(1))
                                .append("totalKeysExamined", new BsonInt64(0))
                                .append("totalDocsExamined", new BsonInt64(documents.size()))));
            }
            case "_shardsvrDataDistribution" -> Replies.ok(new BsonDocument("numOwnedDocuments", new BsonInt64(documents.size()))
                    .append("ownedSizeBytes", new BsonInt64(documents.size() * 100L))
                    .append("numOrphanedDocs", new BsonInt64(0))
                    .append("orphanedSizeBytes", new BsonInt64(0)));
            default -> throw new IllegalArgumentException("the stub shard does not know " + cmd.getFirstKey());
        };
    }

    private BsonDocument find(BsonDocument cmd) {
        BsonDocument filter = cmd.getDocument("filter", new BsonDocument());
        Stream<BsonDocument> docs = matching(cmd, filter).stream();
        BsonDocument sort = cmd.getDocument("sort", new BsonDocument());
        if (!sort.isEmpty()) {
            docs = docs.sorted(Sort.parse(sort).comparator());
        }
        docs = docs.skip(cmd.containsKey("skip") ? cmd.getNumber("skip").longValue() : 0);
        long limit = cmd.containsKey("limit") ? cmd.getNumber("limit").longValue() : 0;
        if (limit > 0) {
            docs = docs.limit(limit);
        }
        if (cmd.containsKey("projection")) {
            Projection projection = Projection.parse(cmd.getDocument("projection"));
            Filter f = Filter.parse(filter, variables(cmd));
            docs = docs.map(d -> projection.apply(d, f));
        }
        boolean single = cmd.getBoolean("singleBatch", BsonBoolean.FALSE).getValue();
        return cursor(new ArrayDeque<>(docs.toList()), cmd.getNumber("batchSize", new BsonInt32(101)).intValue(), single);
    }

    private BsonDocument cursor(Deque<BsonDocument> all, int batchSize, boolean single) {
        long id = ids.incrementAndGet();
        return batch(true, all, batchSize, id, single);
    }

    private BsonDocument batch(boolean first, Deque<BsonDocument> rest, int batchSize, long id, boolean single) {
        List<BsonValue> batch = new ArrayList<>();
        while (!rest.isEmpty() && (batchSize == 0 || batch.size() < batchSize)) {
            batch.add(rest.poll());
        }
        boolean open = !rest.isEmpty() && !single;
        if (open) {
            cursors.put(id, rest);
        } else {
            cursors.remove(id);
        }
        return Replies.cursor(first, batch, open ? id : 0, "db.c");
    }
}
