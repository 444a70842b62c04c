package dev.shardstore.router.query;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.CollectionSource;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.router.cursor.DocumentStream;
import dev.shardstore.router.cursor.RouterCursorManager;
import dev.shardstore.router.peer.PeerClient;
import dev.shardstore.router.routing.ShardRegistry;
import dev.shardstore.support.operation.CurrentOpRequest;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.support.operation.OperationRegistry;
import dev.shardstore.support.security.ClientSecurityProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * {@code $currentOp} and {@code killOp} through the router, as mongos answers them (MongoDB manual "$currentOp
 * (aggregation)", "killOp").
 *
 * <p>{@code {aggregate: 1, pipeline: [{$currentOp: {allUsers?, localOps?}}, ...], cursor: {batchSize?}}} on
 * {@code admin} → a router cursor on {@code admin.$cmd.aggregate} over the router's own running commands (its
 * {@link OperationRegistry}, MongoDB's shape) followed by every shard's: the stage is sent to each shard of the
 * registry, in name order, as {@code {$currentOp: {allUsers: true}}} and each document the shard answers gets {@code shard: "<name>"}
 * first and, when it has one, its {@code opid} as {@code "<shard>:<opid>"} (mongos's form, which {@code killOp}
 * takes). {@code localOps: true} lists the router's own operations only. The stages after the first run on the router
 * over that list with the query engine ({@code $lookup} reads nothing: no collection is the input). With
 * authorization on and without {@code allUsers}, a client sees only its own users' operations of this router and no
 * shard's: a shard runs the router's requests as a cluster member and cannot tell whose they are. Options and their
 * errors: {@link CurrentOpRequest}; a shard's error fails the command with that error.
 *
 * <p>{@code {killOp: 1, op: "<shard>:<opid>" | <number>}} on {@code admin}: a string sends {@code {killOp: 1, op:
 * <opid>}} to that shard, a number marks the router's own operation killed; the reply is MongoDB's {@code {info:
 * "attempting to kill op", ok: 1}} whether or not the operation still runs. Errors: FailedToParse (9) without
 * {@code op} or for a string that is not {@code "<shard>:<opid>"}; TypeMismatch (14) for another type; ShardNotFound
 * (70) for a shard the registry does not know; the shard's error.
 */
@Component
public class ClusterCurrentOp {
    private static final CollectionSource NO_COLLECTIONS = (collection, filter) -> List.of();

    private final OperationRegistry operations;
    private final ShardRegistry shards;
    private final PeerClient client;
    private final RouterCursorManager cursors;
    private final boolean authorizationEnforced;

    public ClusterCurrentOp(OperationRegistry operations, ShardRegistry shards, PeerClient client, RouterCursorManager cursors,
            ClientSecurityProperties security) {
        this.operations = operations;
        this.shards = shards;
        this.client = client;
        this.cursors = cursors;
        this.authorizationEnforced = security.enforced();
    }

    /**
     * Answers an aggregate whose pipeline {@link CurrentOpRequest#uses} the stage.
     *
     * @throws CommandException as listed on the class
     */
    public BsonDocument aggregate(OperationContext opCtx, String db, BsonDocument command) {
        CurrentOpRequest request = CurrentOpRequest.parse(db, command);
        CommandArgs args = new CommandArgs(command);
        int batchSize = ShardedReads.aggregateBatchSize(args, command);
        CommandVariables variables = CommandVariables.ofCommand(command);
        BsonArray following = CurrentOpRequest.following(command);
        PipelineSplit.run(following, List.of(), NO_COLLECTIONS, variables); // the rest's parse errors before any shard is asked
        List<BsonDocument> listed = new ArrayList<>(request.list(operations, opCtx.caller(), authorizationEnforced));
        if (!request.localOps() && request.showsEveryOperation(opCtx.caller(), authorizationEnforced)) {
            for (Map.Entry<String, String> shard : new TreeMap<>(shards.all()).entrySet()) { // by shard name
                BsonDocument reply = client.runChecked(shard.getKey(), shard.getValue(), "admin", toShards());
                for (BsonValue op : reply.getDocument("cursor").getArray("firstBatch")) {
                    listed.add(ofShard(shard.getKey(), op.asDocument()));
                }
            }
        }
        List<BsonDocument> results = PipelineSplit.run(following, listed, NO_COLLECTIONS, variables);
        return cursors.open(db, "$cmd.aggregate", DocumentStream.of(results), batchSize, false);
    }

    /** What each shard is sent: every operation it runs (new each time: the transport adds its fields to the command). */
    private static BsonDocument toShards() {
        return new BsonDocument("aggregate", new BsonInt32(1))
                .append("pipeline", new BsonArray(List.of(new BsonDocument(CurrentOpRequest.STAGE, new BsonDocument("allUsers", BsonBoolean.TRUE)))))
                .append("cursor", new BsonDocument());
    }

    /** A shard's {@code $currentOp} document as mongos shows it: {@code shard} first, the opid as {@code "<shard>:<opid>"}. */
    private static BsonDocument ofShard(String shard, BsonDocument op) {
        BsonDocument shown = new BsonDocument("shard", new BsonString(shard));
        op.forEach((field, value) -> shown.append(field, field.equals("opid") && value.isNumber()
                ? new BsonString(shard + ":" + value.asNumber().longValue()) : value));
        return shown;
    }

    /**
     * {@code killOp}, see the class comment.
     *
     * @throws CommandException as listed on the class
     */
    public BsonDocument killOp(BsonDocument command) {
        BsonValue op = command.get("op");
        if (op == null || !op.isString()) {
            operations.kill(OperationRegistry.killOpTarget(command));
            return OperationRegistry.killOpReply();
        }
        String value = op.asString().getValue();
        int colon = value.lastIndexOf(':');
        long opid;
        try {
            opid = colon <= 0 ? -1 : Long.parseLong(value.substring(colon + 1));
        } catch (NumberFormatException e) {
            opid = -1;
        }
        if (opid < 0) {
            throw new CommandException(ErrorCode.FailedToParse, "killOp's \"op\" must be an opid or \"<shard>:<opid>\", not \"" + value + "\"");
        }
        String shard = value.substring(0, colon);
        String host = shards.hostOf(shard);
        client.runChecked(shard, host, "admin", new BsonDocument("killOp", new BsonInt32(1)).append("op", new BsonInt64(opid)));
        return OperationRegistry.killOpReply();
    }
}
