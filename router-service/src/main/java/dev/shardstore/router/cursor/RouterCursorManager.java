package dev.shardstore.router.cursor;

import dev.shardstore.router.transaction.RouterTransaction;

import dev.shardstore.support.operation.OperationContext;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.router.peer.PeerClient;
import dev.shardstore.router.RouterProperties;
import dev.shardstore.router.routing.ShardRegistry;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.support.parameter.ServerParameters;
import dev.shardstore.support.security.UserName;
import dev.shardstore.support.session.LogicalSessionCache;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Router cursors (mongos's {@code ClusterCursorManager}): each client-visible cursor reads a
 * {@link DocumentStream}, usually a {@link MergingStream} over the shard cursors a statement opened, so
 * {@code getMore} pulls shard batches lazily and {@code killCursors} kills the shard cursors still open (no
 * version check: a cursor stays pinned to the shards it was opened on, as in mongos). Cursors idle longer than
 * {@code shardstore.router.cursor-timeout} are killed, here and on the shards.
 */
@Component
public class RouterCursorManager implements CursorSessions {
    private final Map<Long, RouterCursor> cursors = new ConcurrentHashMap<>();
    /** The session of each cursor opened under one; entries of closed cursors are dropped by the reaper. */
    private final Map<Long, LogicalSessionId> sessionsOfCursors = new ConcurrentHashMap<>();
    /** The authenticated users who opened each client cursor; a cursor the router opened for itself has none. */
    private final Map<Long, List<UserName>> ownersOfCursors = new ConcurrentHashMap<>();
    private final SecureRandom ids = new SecureRandom();
    private final PeerClient client;
    private final ShardRegistry shards;
    private final long timeoutNanos;
    private final ServerParameters parameters;

    public RouterCursorManager(PeerClient client, ShardRegistry shards, RouterProperties properties, LogicalSessionCache sessions,
            ServerParameters parameters) {
        this.parameters = parameters;
        this.client = client;
        this.shards = shards;
        this.timeoutNanos = properties.cursorTimeout().toNanos();
        sessions.onSessionsGone(this::killSessions);
    }

    /**
     * One shard's part of a merge, read from the shard's cursor reply ({@code {cursor: {id, ns, firstBatch}}}
     * of a find or aggregate run on {@code db}).
     *
     * @param forwarding whether the reply's batch was kept raw ({@link PeerClient#runForwarding}); the getMores then
     *                   keep theirs raw too
     */
    public MergingStream.Source source(OperationContext opCtx, String shardId, String db, BsonDocument shardReply, boolean forwarding) {
        BsonDocument cursor = shardReply.getDocument("cursor");
        String ns = cursor.getString("ns").getValue();
        String collection = ns.startsWith(db + ".") ? ns.substring(db.length() + 1) : ns;
        return new MergingStream.Source(RemoteShardCursor.documents(cursor.getArray("firstBatch")),
                new RemoteShardCursor(client, shards, shardId, db, collection, cursor.getNumber("id").longValue(), forwarding,
                        RouterTransaction.sessionFieldsOf(opCtx)));
    }

    /**
     * Answers a statement with the first batch of {@code stream}: {@code {cursor: {firstBatch, id, ns}, ok: 1}},
     * registering a router cursor when the stream is not known to be exhausted.
     *
     * @param batchSize   the first batch's size (MongoDB's default is 101); 0 for an empty first batch
     * @param singleBatch whether to close the cursor after the first batch (find's {@code singleBatch})
     */
    public BsonDocument open(String db, String collection, DocumentStream stream, int batchSize, boolean singleBatch) {
        List<BsonDocument> batch;
        try {
            batch = batchSize == 0 ? List.of() : RouterCursor.batch(stream, batchSize);
        } catch (RuntimeException e) {
            stream.close();
            throw e;
        }
        if (singleBatch || stream.exhausted()) {
            stream.close();
            return Replies.cursor(true, batch, 0, db + "." + collection);
        }
        return Replies.cursor(true, batch, register(db, collection, stream).id(), db + "." + collection);
    }

    /**
     * Rewrites one shard's cursor reply for the client, as it is (the shard already cut the first batch): when
     * the shard cursor is still open, registers a router cursor over it and puts its id in the reply.
     */
    public BsonDocument adopt(OperationContext opCtx, String db, String collection, String shardId, BsonDocument shardReply) {
        BsonDocument cursor = shardReply.getDocument("cursor");
        if (cursor.getNumber("id").longValue() == 0) {
            return shardReply;
        }
        MergingStream.Source rest = source(opCtx, shardId, db, shardReply, true); // the getMores' batches go on as they are too
        MergingStream stream = new MergingStream(List.of(new MergingStream.Source(List.of(), rest.cursor())), null, 0, 0);
        BsonDocument reply = shardReply.clone();
        reply.getDocument("cursor").put("id", new BsonInt64(register(db, collection, stream).id()));
        return reply;
    }

    /**
     * Registers a router cursor over {@code stream}, or refuses it with OperationFailed (96) when the router already holds
     * {@code internalQueryMaxOpenCursors} open cursors (checked before the insertion, so concurrent opens may pass it
     * by their number); {@code stream} is closed then. The caps per session are the shards' (docs/architecture.md
     * "Memory limits"), which every router cursor over a shard cursor meets.
     */
    private RouterCursor register(String db, String collection, DocumentStream stream) {
        long cap = parameters.longValue(ServerParameters.MAX_CURSORS);
        if (cursors.size() >= cap) {
            stream.close();
            throw new CommandException(ErrorCode.OperationFailed, "too many open cursors on this router: " + cursors.size()
                    + " are open and internalQueryMaxOpenCursors is " + cap + "; exhaust or kill some (killCursors) first");
        }
        while (true) {
            long id = ids.nextLong() & Long.MAX_VALUE;
            if (id != 0) {
                RouterCursor cursor = new RouterCursor(id, db, collection, stream);
                if (cursors.putIfAbsent(id, cursor) == null) {
                    return cursor;
                }
            }
        }
    }

    /**
     * {@code {getMore: <id>, collection, batchSize?}} on {@code db} → {@code {cursor: {nextBatch, id, ns}, ok: 1}};
     * id 0 once the cursor is exhausted (it is then forgotten).
     *
     * @throws CommandException TypeMismatch or FailedToParse naming a malformed or missing field; CursorNotFound (43) for an
     *                          unknown, exhausted or killed cursor, or one of another namespace; a shard's error while
     *                          pulling (the cursor is then killed)
     */
    public BsonDocument getMore(OperationContext opCtx, String db, BsonDocument command) {
        checkOwner(opCtx, command.get("getMore"), "getMore");
        return getMore(db, command);
    }

    /**
     * The router's own getMore of a cursor it opened (no owner to check); otherwise as the client's.
     *
     * @throws CommandException as {@link #getMore(OperationContext, String, BsonDocument)}, without the owner check
     */
    public BsonDocument getMore(String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        long id = args.nonNegative(args.required(command, "getMore", "getMore"), "getMore");
        String collection = args.requiredString("collection");
        int batchSize = command.containsKey("batchSize") ? (int) Math.min(Integer.MAX_VALUE, args.nonNegative(command.get("batchSize"), "batchSize")) : 0;
        RouterCursor cursor = cursors.get(id);
        if (cursor == null || !cursor.db().equals(db) || !cursor.collection().equals(collection)) {
            throw new CommandException(ErrorCode.CursorNotFound, "cursor id " + id + " not found in " + db + "." + collection);
        }
        List<BsonDocument> batch;
        try {
            batch = cursor.nextBatch(batchSize);
        } catch (RuntimeException e) {
            cursors.remove(id, cursor);
            cursor.kill();
            throw e;
        }
        long replyId = id;
        if (cursor.exhausted()) {
            cursors.remove(id, cursor);
            cursor.kill();
            replyId = 0;
        }
        return Replies.cursor(false, batch, replyId, cursor.ns());
    }

    /**
     * {@code {killCursors: <collection>, cursors: [ids]}} → MongoDB's reply with
     * {@code cursorsKilled, cursorsNotFound, cursorsAlive, cursorsUnknown}; a killed cursor's shard cursors are
     * killed too.
     */
    public BsonDocument killCursors(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        BsonArray ids = args.requiredArray("cursors");
        ids.forEach(id -> checkOwner(opCtx, id, "killCursors"));
        List<BsonValue> killed = new ArrayList<>();
        List<BsonValue> notFound = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            long id = args.nonNegative(ids.get(i), "cursors." + i);
            RouterCursor cursor = cursors.get(id);
            if (cursor != null && cursor.db().equals(db) && cursor.collection().equals(collection) && cursors.remove(id, cursor)) {
                cursor.kill();
                killed.add(new BsonInt64(id));
            } else {
                notFound.add(new BsonInt64(id));
            }
        }
        return Replies.ok(new BsonDocument("cursorsKilled", new BsonArray(killed))
                .append("cursorsNotFound", new BsonArray(notFound))
                .append("cursorsAlive", new BsonArray())
                .append("cursorsUnknown", new BsonArray()));
    }

    /**
     * Refuses a client's {@code getMore} or {@code killCursors} of a cursor other users opened (MongoDB: a cursor is
     * used by the users authenticated when it was created). Ids that are not numbers or not open are left to the
     * command's own errors.
     *
     * @throws CommandException Unauthorized (13)
     */
    private void checkOwner(OperationContext opCtx, @Nullable BsonValue id, String commandName) {
        if (id == null || !id.isNumber()) {
            return;
        }
        List<UserName> owner = ownersOfCursors.get(id.asNumber().longValue());
        if (owner != null && !Set.copyOf(owner).equals(Set.copyOf(opCtx.caller().principal().users()))) {
            throw new CommandException(ErrorCode.Unauthorized, "not authorized to " + commandName + " cursor id " + id.asNumber().longValue()
                    + ": it was not created by the authenticated user");
        }
    }

    @Override
    public void bindOwner(long id, List<UserName> users) {
        if (id != 0 && cursors.containsKey(id)) {
            ownersOfCursors.put(id, List.copyOf(users));
        }
    }

    /** Makes cursor {@code id} (when open) belong to session {@code lsid}: {@link #killSessions} kills it. */
    @Override
    public void bindSession(long id, LogicalSessionId lsid) {
        if (id != 0 && cursors.containsKey(id)) {
            sessionsOfCursors.put(id, lsid);
        }
    }

    /**
     * Kills the cursors of the sessions (ended, killed or expired: mongo/src/mongo/db/s/README.md "How the logical session cache syncs with the sessions collection", step 4 of the logical session cache's
     * refresh), with their shard cursors; the number killed.
     */
    public int killSessions(Set<LogicalSessionId> lsids) {
        int killed = 0;
        for (Map.Entry<Long, LogicalSessionId> e : Map.copyOf(sessionsOfCursors).entrySet()) {
            if (lsids.contains(e.getValue())) {
                sessionsOfCursors.remove(e.getKey());
                RouterCursor cursor = cursors.remove(e.getKey());
                if (cursor != null) {
                    cursor.kill();
                    killed++;
                }
            }
        }
        return killed;
    }

    /** How many router cursors are open. */
    public int openCursors() {
        return cursors.size();
    }

    @Scheduled(fixedDelay = 30_000)
    public void reapIdle() {
        long now = System.nanoTime();
        sessionsOfCursors.keySet().removeIf(id -> !cursors.containsKey(id));
        ownersOfCursors.keySet().removeIf(id -> !cursors.containsKey(id));
        cursors.values().stream().filter(c -> now - c.lastUsedNanos() > timeoutNanos).forEach(c -> {
            if (cursors.remove(c.id(), c)) {
                c.kill();
            }
        });
    }
}
