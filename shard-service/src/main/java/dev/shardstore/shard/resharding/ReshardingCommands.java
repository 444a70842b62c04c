package dev.shardstore.shard.resharding;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.support.failpoint.FailPoints;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.KeyRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.command.CommandInvoker;
import dev.shardstore.shard.command.ShardCommand;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.versioning.CollectionShardingRuntime;
import dev.shardstore.shard.versioning.CollectionShardingState;
import java.util.List;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The shard's resharding commands, sent by the resharding coordinator to {@code admin}, each with the namespace
 * {@code "db.coll"} first and the operation's {@code reshardingUUID}. Internal: no versions, no lock.
 */
@Configuration
public class ReshardingCommands {
    /** A donor's fault-test step: passed before it reads an oplog batch for a recipient. */
    public static final String BEFORE_OPLOG_BATCH = "reshardingDonor.beforeOplogBatch";

    /** The most keys one sample returns: 10 per chunk (ReshardingSplitPolicy) of MongoDB's 8192 chunks per shard. */
    private static final long MAX_SAMPLE = 81_920;
    /** Most bytes of documents in one clone page: BSON replies stay well under 16 MB. */
    private static final long CLONE_PAGE_BYTES = 4L * 1024 * 1024;

    /**
     * {@code {_shardsvrReshardingDonorStart: "db.coll", reshardingUUID}} → {@code {minFetchTimestamp: Timestamp, ok: 1}}
     * ({@link ReshardingDonors#start}).
     */
    @Bean
    ShardCommand reshardingDonorStart(CommandInvoker invoker, ReshardingDonors donors) {
        String name = "_shardsvrReshardingDonorStart";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> Replies.ok(
                new BsonDocument("minFetchTimestamp", donors.start(reshardingUuid(cmd), namespace(cmd, name)))));
    }

    /** {@code {_shardsvrReshardingDonorAbort: "db.coll", reshardingUUID}} → {@code {ok: 1}} ({@link ReshardingDonors#end}). */
    @Bean
    ShardCommand reshardingDonorAbort(CommandInvoker invoker, ReshardingDonors donors) {
        String name = "_shardsvrReshardingDonorAbort";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> {
            namespace(cmd, name);
            donors.end(reshardingUuid(cmd));
            return Replies.ok();
        });
    }

    /**
     * {@code {_shardsvrReshardingSampleKeys: "db.coll", reshardingUUID, key: {..}, size: N}} → {@code {keys: [..], ok: 1}}, at most {@link #MAX_SAMPLE}
     * ({@link ReshardingKeySampler#sample}).
     */
    @Bean
    ShardCommand reshardingSampleKeys(CommandInvoker invoker, ReshardingKeySampler sampler) {
        String name = "_shardsvrReshardingSampleKeys";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> {
            reshardingUuid(cmd);
            CommandArgs args = new CommandArgs(cmd);
            ShardKeyPattern newKey = ShardKeyPattern.of(args.document(args.required(cmd, "key", "key"), "key"));
            List<BsonDocument> keys = sampler.sample(namespace(cmd, name), newKey, (int) Math.min(args.optionalNonNegative("size", 0), MAX_SAMPLE));
            return Replies.ok(new BsonDocument("keys", new BsonArray(List.copyOf(keys))));
        });
    }

    /**
     * Donor: {@code {_shardsvrReshardingCloneBatch: "db.coll", reshardingUUID, key, cloneTimestamp, ranges: [{min, max}],
     * after: BinData, maxRows}} → {@code {documents: [..], next?: BinData, ok: 1}} ({@link ReshardingCloneSource#page}).
     */
    @Bean
    ShardCommand reshardingCloneBatch(CommandInvoker invoker, ReshardingCloneSource source) {
        String name = "_shardsvrReshardingCloneBatch";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> {
            reshardingUuid(cmd);
            CommandArgs args = new CommandArgs(cmd);
            ShardKeyPattern newKey = newKey(cmd);
            ReshardingCloneSource.ClonePage page = source.page(namespace(cmd, name), timestamp(cmd, "cloneTimestamp"), newKey,
                    ranges(cmd, newKey), args.required(cmd, "after", "after").asBinary().getData(),
                    (int) Math.min(args.optionalNonNegative("maxRows", 1000), 10_000), CLONE_PAGE_BYTES);
            BsonDocument reply = new BsonDocument("documents", new BsonArray(page.documents().stream().map(d -> (BsonValue) d.raw()).toList()));
            if (page.next() != null) {
                reply.append("next", new BsonBinary(page.next()));
            }
            return Replies.ok(reply);
        });
    }

    /**
     * Donor: {@code {_shardsvrReshardingOplogBatch: "db.coll", reshardingUUID, after: Timestamp}} →
     * {@code {entries, resumeAfter, more, ok: 1}} ({@link ReshardingCloneSource#oplogBatch}).
     */
    @Bean
    ShardCommand reshardingOplogBatch(CommandInvoker invoker, ReshardingCloneSource source, FailPoints failPoints) {
        String name = "_shardsvrReshardingOplogBatch";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> {
            reshardingUuid(cmd);
            failPoints.hit(BEFORE_OPLOG_BATCH);
            return Replies.ok(source.oplogBatch(namespace(cmd, name), timestamp(cmd, "after")));
        });
    }

    /**
     * Donor and recipient: {@code {_shardsvrReshardingDigest: "db.coll", reshardingUUID, key, ranges, ownedOnly}} →
     * {@code {digests: [{count: long, hash: long}], ok: 1}} ({@link ReshardingCloneSource#digest}).
     */
    @Bean
    ShardCommand reshardingDigest(CommandInvoker invoker, ReshardingCloneSource source) {
        String name = "_shardsvrReshardingDigest";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> {
            reshardingUuid(cmd);
            ShardKeyPattern newKey = newKey(cmd);
            List<long[]> digests = source.digest(namespace(cmd, name), newKey, ranges(cmd, newKey),
                    new CommandArgs(cmd).optionalBoolean(cmd, "ownedOnly", "ownedOnly", false));
            return Replies.ok(new BsonDocument("digests", new BsonArray(digests.stream().map(d -> (BsonValue) new BsonDocument("count",
                    new BsonInt64(d[0])).append("hash", new BsonInt64(d[1]))).toList())));
        });
    }

    /**
     * Donor: {@code {_shardsvrReshardingDonorCommit: "db.coll", reshardingUUID, dropCollection: bool}} → {@code {ok: 1}}:
     * drops the old collection when asked (a donor that is no recipient; a recipient's rename replaced it otherwise),
     * then ends the donation. Idempotent.
     */
    @Bean
    ShardCommand reshardingDonorCommit(CommandInvoker invoker, ReshardingDonors donors, CollectionCatalog catalog,
            CollectionShardingRuntime runtime, CollectionShardingState sharding) {
        String name = "_shardsvrReshardingDonorCommit";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> {
            Namespace namespace = namespace(cmd, name);
            if (new CommandArgs(cmd).optionalBoolean(cmd, "dropCollection", "dropCollection", false)) {
                runtime.exclusive(namespace, () -> catalog.drop(opCtx, namespace));
                sharding.markStale(namespace.full());
            }
            donors.end(reshardingUuid(cmd));
            return Replies.ok();
        });
    }

    /**
     * Recipient: {@code {_shardsvrReshardingRecipientClone: "db.coll", reshardingUUID, key, cloneTimestamp, ranges,
     * donorShards: [name], maxSteps}} → {@code {done, count, ok: 1}} ({@link ReshardingRecipients#clone}); and
     * {@code _shardsvrReshardingRecipientApply} with the same arguments ({@link ReshardingRecipients#apply}).
     */
    @Bean
    ShardCommand reshardingRecipientClone(CommandInvoker invoker, ReshardingRecipients recipients) {
        String name = "_shardsvrReshardingRecipientClone";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> step(recipients.clone(receipt(cmd, name), maxSteps(cmd))));
    }

    /** See {@link #reshardingRecipientClone}. */
    @Bean
    ShardCommand reshardingRecipientApply(CommandInvoker invoker, ReshardingRecipients recipients) {
        String name = "_shardsvrReshardingRecipientApply";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> step(recipients.apply(receipt(cmd, name), maxSteps(cmd))));
    }

    /**
     * Recipient: {@code {_shardsvrReshardingRecipientCommit: "db.coll", reshardingUUID}} ({@link ReshardingRecipients#commit})
     * and {@code _shardsvrReshardingRecipientAbort} ({@link ReshardingRecipients#abort}) → {@code {ok: 1}}.
     */
    @Bean
    ShardCommand reshardingRecipientCommit(CommandInvoker invoker, ReshardingRecipients recipients) {
        String name = "_shardsvrReshardingRecipientCommit";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> {
            recipients.commit(reshardingUuid(cmd), namespace(cmd, name));
            return Replies.ok();
        });
    }

    /** See {@link #reshardingRecipientCommit}. */
    @Bean
    ShardCommand reshardingRecipientAbort(CommandInvoker invoker, ReshardingRecipients recipients) {
        String name = "_shardsvrReshardingRecipientAbort";
        return ShardCommand.adminOnly(invoker, name, (opCtx, db, cmd) -> {
            recipients.abort(reshardingUuid(cmd), namespace(cmd, name));
            return Replies.ok();
        });
    }

    private static BsonDocument step(ReshardingRecipients.Step step) {
        return Replies.ok(new BsonDocument("done", BsonBoolean.valueOf(step.done())).append("count", new BsonInt64(step.count())));
    }

    private static int maxSteps(BsonDocument cmd) {
        return (int) Math.min(Math.max(new CommandArgs(cmd).optionalNonNegative("maxSteps", 10), 1), 1000);
    }

    private static ReshardingRecipients.Receipt receipt(BsonDocument cmd, String name) {
        ShardKeyPattern newKey = newKey(cmd);
        List<BsonDocument> bounds = new CommandArgs(cmd).requiredArray("ranges").stream().map(BsonValue::asDocument).toList();
        List<String> donors = new CommandArgs(cmd).requiredArray("donorShards").stream().map(d -> d.asString().getValue()).toList();
        return new ReshardingRecipients.Receipt(reshardingUuid(cmd), namespace(cmd, name), newKey, ranges(cmd, newKey), bounds, donors,
                timestamp(cmd, "cloneTimestamp"));
    }

    private static ShardKeyPattern newKey(BsonDocument cmd) {
        CommandArgs args = new CommandArgs(cmd);
        return ShardKeyPattern.of(args.document(args.required(cmd, "key", "key"), "key"));
    }

    /** {@code ranges: [{min, max}]} of the new key, as KeyString ranges. */
    private static List<KeyRange> ranges(BsonDocument cmd, ShardKeyPattern newKey) {
        return new CommandArgs(cmd).requiredArray("ranges").stream()
                .map(r -> KeyRange.of(newKey, ChunkRange.fromBson(r.asDocument()))).toList();
    }

    private static BsonTimestamp timestamp(BsonDocument cmd, String field) {
        BsonValue value = new CommandArgs(cmd).required(cmd, field, field);
        if (!value.isTimestamp()) {
            throw new CommandException(ErrorCode.TypeMismatch, "'" + field + "' must be a Timestamp");
        }
        return value.asTimestamp();
    }

    private static Namespace namespace(BsonDocument cmd, String name) {
        return Namespace.parse(new CommandArgs(cmd).requiredString(name), name);
    }

    private static UUID reshardingUuid(BsonDocument cmd) {
        return new CommandArgs(cmd).requiredUuid("reshardingUUID");
    }
}
