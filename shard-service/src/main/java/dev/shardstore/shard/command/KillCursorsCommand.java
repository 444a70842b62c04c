package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.shard.cursor.CursorManager;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code killCursors}: {@code {killCursors: <coll>, cursors: [<id>, ...]}} →
 * {@code {cursorsKilled, cursorsNotFound, cursorsAlive, cursorsUnknown, ok: 1}}. A cursor of another
 * namespace counts as not found; {@code cursorsAlive} and {@code cursorsUnknown} are always empty
 * here, since a kill always succeeds on this shard.
 */
@Component
public class KillCursorsCommand extends ShardCommand {
    private final CursorManager cursors;

    public KillCursorsCommand(CommandInvoker invoker, CursorManager cursors) {
        super(invoker);
        this.cursors = cursors;
    }

    @Override
    public String name() {
        return "killCursors";
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        String ns = db + "." + args.collectionName();
        BsonArray array = args.requiredArray("cursors");
        List<Long> ids = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            ids.add(GetMoreCommand.cursorId(array.get(i), "cursors." + i));
        }
        CursorManager.KillResult result = cursors.kill(ns, ids);
        return Replies.ok(new BsonDocument("cursorsKilled", longs(result.killed()))
                .append("cursorsNotFound", longs(result.notFound()))
                .append("cursorsAlive", new BsonArray())
                .append("cursorsUnknown", new BsonArray()));
    }

    private static BsonArray longs(List<Long> ids) {
        BsonArray array = new BsonArray();
        ids.forEach(id -> array.add(new BsonInt64(id)));
        return array;
    }
}
