package dev.shardstore.router.cursor;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.http.CommandClient;
import dev.shardstore.router.RouterProperties;
import dev.shardstore.router.routing.ShardRegistry;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Router cursors over shard cursors: {@code getMore} and {@code killCursors} are forwarded to the
 * shard holding the cursor (no version check: a cursor stays pinned to where it was opened, as in
 * mongos). Cursors idle longer than {@code shardstore.router.cursor-timeout} are killed, here and on
 * the shard.
 */
@Component
public class RouterCursorManager {
    private static final Logger log = LoggerFactory.getLogger(RouterCursorManager.class);

    private final Map<Long, RouterCursor> cursors = new ConcurrentHashMap<>();
    private final SecureRandom ids = new SecureRandom();
    private final CommandClient client;
    private final ShardRegistry shards;
    private final long timeoutNanos;

    public RouterCursorManager(CommandClient client, ShardRegistry shards, RouterProperties properties) {
        this.client = client;
        this.shards = shards;
        this.timeoutNanos = properties.cursorTimeout().toNanos();
    }

    /**
     * Rewrites a shard's cursor reply for the client: when the shard cursor is still open, registers
     * a router cursor and puts its id in the reply.
     */
    public BsonDocument adopt(String db, String collection, String shardId, BsonDocument shardReply) {
        BsonDocument cursor = shardReply.getDocument("cursor");
        long remoteId = cursor.getNumber("id").longValue();
        if (remoteId == 0) {
            return shardReply;
        }
        long id;
        do {
            id = ids.nextLong() & Long.MAX_VALUE;
        } while (id == 0 || cursors.putIfAbsent(id, new RouterCursor(id, db, collection, shardId, remoteId, System.nanoTime())) != null);
        BsonDocument reply = shardReply.clone();
        reply.getDocument("cursor").put("id", new BsonInt64(id));
        return reply;
    }

    /**
     * {@code {getMore: <id>, collection, batchSize?}} on {@code db}.
     *
     * @throws CommandException TypeMismatch or FailedToParse naming a malformed or missing field; CursorNotFound (43) for an unknown, exhausted or killed cursor, or one of
     *                          another namespace
     */
    public BsonDocument getMore(String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        long id = args.nonNegative(command.get("getMore"), "getMore");
        String collection = args.requiredString("collection");
        RouterCursor cursor = cursors.get(id);
        if (cursor == null || !cursor.db().equals(db) || !cursor.collection().equals(collection)) {
            throw new CommandException(ErrorCode.CursorNotFound, "cursor id " + id + " not found in " + db + "." + collection);
        }
        cursors.put(id, cursor.touched());
        BsonDocument forwarded = command.clone();
        forwarded.put("getMore", new BsonInt64(cursor.remoteId()));
        BsonDocument reply;
        try {
            reply = client.runChecked(cursor.shardId(), shards.hostOf(cursor.shardId()), db, forwarded);
        } catch (CommandException e) {
            cursors.remove(id);
            throw e;
        }
        long remaining = reply.getDocument("cursor").getNumber("id").longValue();
        if (remaining == 0) {
            cursors.remove(id);
            return reply;
        }
        reply.getDocument("cursor").put("id", new BsonInt64(id));
        return reply;
    }

    /**
     * {@code {killCursors: <collection>, cursors: [ids]}} → MongoDB's reply with
     * {@code cursorsKilled, cursorsNotFound, cursorsAlive, cursorsUnknown}.
     */
    public BsonDocument killCursors(String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        BsonArray ids = args.requiredArray("cursors");
        List<BsonValue> killed = new ArrayList<>();
        List<BsonValue> notFound = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            long id = args.nonNegative(ids.get(i), "cursors." + i);
            RouterCursor cursor = cursors.get(id);
            if (cursor != null && cursor.db().equals(db) && cursor.collection().equals(collection) && cursors.remove(id, cursor)) {
                killRemote(cursor);
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

    /** How many router cursors are open. */
    public int openCursors() {
        return cursors.size();
    }

    @Scheduled(fixedDelay = 30_000)
    public void reapIdle() {
        long now = System.nanoTime();
        cursors.values().stream().filter(c -> now - c.lastUsedNanos() > timeoutNanos).forEach(c -> {
            if (cursors.remove(c.id(), c)) {
                killRemote(c);
            }
        });
    }

    private void killRemote(RouterCursor cursor) {
        BsonDocument kill = new BsonDocument("killCursors", new BsonString(cursor.collection()))
                .append("cursors", new BsonArray(List.of(new BsonInt64(cursor.remoteId()))));
        try {
            BsonDocument reply = client.run(cursor.shardId(), shards.hostOf(cursor.shardId()), cursor.db(), kill);
            if (ErrorReplies.isError(reply)) {
                log.debug("shard {} refused to kill cursor {}: {}", cursor.shardId(), cursor.remoteId(), reply.toJson());
            }
        } catch (CommandException e) {
            log.debug("could not kill cursor {} on {}: {}", cursor.remoteId(), cursor.shardId(), e.getMessage());
        }
    }
}
