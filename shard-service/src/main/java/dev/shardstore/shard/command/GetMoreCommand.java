package dev.shardstore.shard.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.cursor.CursorManager;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code getMore}: {@code {getMore: <cursor id, long>, collection: <coll>, batchSize?}} →
 * {@code {cursor: {nextBatch, id, ns}, ok: 1}}, id 0 once the cursor is exhausted. Without
 * {@code batchSize} a batch is bounded by 16 MiB only. CursorNotFound (43) for an unknown, killed or
 * timed-out cursor, or one of another namespace.
 */
@Component
public class GetMoreCommand extends ShardCommand {
    private final CursorManager cursors;

    public GetMoreCommand(CommandInvoker invoker, CursorManager cursors) {
        super(invoker);
        this.cursors = cursors;
    }

    @Override
    public String name() {
        return "getMore";
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        long id = cursorId(Objects.requireNonNull(command.get("getMore"), "the command's name is its first field"), "getMore");
        String ns = db + "." + args.requiredString("collection");
        long batchSize = args.optionalNonNegative("batchSize", 0);
        CursorManager.CursorBatch batch = cursors.getMore(opCtx, id, ns, batchSize == 0 ? Long.MAX_VALUE : batchSize);
        return Replies.cursor(false, batch.documents(), batch.cursorId(), ns);
    }

    /**
     * A cursor id: an int64 (or an int32, which a JSON front end produces for small numbers).
     *
     * @throws CommandException TypeMismatch naming {@code path} for anything else
     */
    static long cursorId(BsonValue value, String path) {
        if (value.isInt64() || value.isInt32()) {
            return value.asNumber().longValue();
        }
        throw new CommandException(ErrorCode.TypeMismatch, "'" + path + "' must be a cursor id (long), not "
                + value.getBsonType().name().toLowerCase());
    }
}
