package dev.shardstore.router.command;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.WriteErrors;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.router.routing.VersionedRouter;
import dev.shardstore.router.transaction.RouterTransaction;
import dev.shardstore.support.operation.OperationContext;
import java.util.List;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * An update that changes a document's shard key so that another shard owns it, run in a transaction as MongoDB's
 * router runs it (mongo/src/mongo/db/s/README.md "Transactions"; MongoDB's {@code documentShardKeyUpdateUtil}): the
 * shard answers the statement with the write error WouldChangeOwningShard (283) carrying the document's
 * {@code preImage} and {@code postImage} and keeps the transaction open; the router then deletes the pre-image on its
 * shard (by its {@code documentKey}: the shard key's values and {@code _id}) and inserts the post-image where it now
 * belongs, both as statements of the same transaction, so that the move commits or aborts with it.
 *
 * <p>Only an {@code update} of one statement in a transaction moves a document. Outside a transaction the write error
 * reaches the client, as it does from MongoDB for a write that is neither in a transaction nor retryable; a retryable
 * write, which MongoDB runs as an internal transaction, gets it too (not built).
 */
@Component
public class DocumentShardKeyUpdate {
    private final VersionedRouter router;
    private final ClusterDeleteCommand delete;
    private final ClusterInsertCommand insert;

    public DocumentShardKeyUpdate(VersionedRouter router, ClusterDeleteCommand delete, ClusterInsertCommand insert) {
        this.router = router;
        this.delete = delete;
        this.insert = insert;
    }

    /**
     * The images of {@code reply}'s WouldChangeOwningShard when the update it answers is one that moves its document:
     * {@code opCtx} runs in a transaction and the update had one statement.
     */
    public Optional<BsonDocument> wouldChangeOwningShard(OperationContext opCtx, int statements, BsonDocument reply) {
        if (RouterTransaction.of(opCtx) == null || statements != 1 || !(reply.get("writeErrors") instanceof BsonArray errors)
                || errors.size() != 1) {
            return Optional.empty();
        }
        BsonDocument error = errors.get(0).asDocument();
        return error.getNumber("code").intValue() == ErrorCode.WouldChangeOwningShard.code() && error.isDocument("preImage")
                && error.isDocument("postImage") ? Optional.of(error) : Optional.empty();
    }

    /**
     * Moves the document of {@code info} (a WouldChangeOwningShard write error's {@code preImage} and {@code postImage})
     * in {@code opCtx}'s transaction.
     *
     * @return the update's reply: {@code {n: 1, nModified: 1, ok: 1}}
     * @throws CommandException WriteConflict (112) when the pre-image is gone (a write after the shard read it), the
     *                          insert's error (a duplicate {@code _id} where the document now belongs: 11000), or a
     *                          routing error; the caller aborts the transaction
     */
    public BsonDocument move(OperationContext opCtx, String db, String collection, BsonDocument info) {
        BsonDocument pre = info.getDocument("preImage");
        BsonDocument post = info.getDocument("postImage");
        RoutingTable table = router.run(opCtx, db, collection, false, routing -> Optional.ofNullable(routing.table()))
                .flatMap(t -> t).orElse(null);
        if (table == null) {
            throw new CommandException(ErrorCode.ConflictingOperationInProgress, db + "." + collection
                    + " is no longer sharded: the update that changed its document's shard key cannot move the document");
        }
        BsonDocument deleted = delete.run(opCtx, db, new BsonDocument("delete", new BsonString(collection))
                .append("deletes", new BsonArray(List.of(new BsonDocument("q", table.shardKey().documentKey(pre))
                        .append("limit", new BsonInt32(1))))));
        failOnWriteError(deleted);
        if (deleted.getNumber("n").intValue() != 1) {
            throw new CommandException(ErrorCode.WriteConflict, "the document whose shard key the update changed, _id "
                    + idOf(pre) + ", was changed or deleted by another write before it could be moved to its new shard");
        }
        failOnWriteError(insert.run(opCtx, db, new BsonDocument("insert", new BsonString(collection))
                .append("documents", new BsonArray(List.of(post)))));
        return Replies.ok(new BsonDocument("n", new BsonInt32(1)).append("nModified", new BsonInt32(1)));
    }

    private static void failOnWriteError(BsonDocument reply) {
        CommandException error = WriteErrors.firstAsCommandError(reply);
        if (error != null) {
            throw error;
        }
    }

    private static String idOf(BsonDocument document) {
        @Nullable BsonValue id = document.get("_id");
        return id == null ? "(none)" : id.toString();
    }
}
