package dev.shardstore.router.query;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.router.peer.PeerClient;
import dev.shardstore.engine.aggregate.CollectionSource;
import dev.shardstore.router.cursor.DocumentStream;
import dev.shardstore.router.cursor.RouterCursorManager;
import dev.shardstore.router.routing.CollectionRouting;
import dev.shardstore.router.routing.ConfigServer;
import dev.shardstore.router.routing.ShardRegistry;
import dev.shardstore.router.routing.VersionedRouter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * The {@code $shardedDataDistribution} aggregation stage (MongoDB manual, "$shardedDataDistribution"):
 * {@code db.adminCommand({aggregate: 1, pipeline: [{$shardedDataDistribution: {}}, ...], cursor: {}})} → one
 * document per sharded collection, {@code {ns, shards: [{shardName, numOrphanedDocs, numOwnedDocuments,
 * ownedSizeBytes, orphanedSizeBytes}]}}, the shards being those that own chunks of it or still hold orphans of it (a
 * donor that gave its last chunk away keeps them until its range deletion). The sharded collections
 * come from {@code config.collections}; each shard reports its part with {@code _shardsvrDataDistribution}
 * (docs/sharding-protocol.md). The stages after the first run on the router with the query engine.
 *
 * <p>Errors: InvalidNamespace (73) unless run on {@code admin} with {@code aggregate: 1}; FailedToParse (9) when
 * the stage's argument is not {@code {}} or the {@code cursor} option is missing; BadValue (2) when the stage is
 * not the first.
 */
@Component
public class ShardedDataDistribution {
    /** The stage's name. */
    public static final String STAGE = "$shardedDataDistribution";
    private static final CollectionSource NO_LOOKUP = (collection, filter) -> List.of();
    private static final List<String> COUNTERS = List.of("numOrphanedDocs", "numOwnedDocuments", "ownedSizeBytes", "orphanedSizeBytes");

    private final ConfigServer config;
    private final VersionedRouter router;
    private final RouterCursorManager cursors;
    private final PeerClient client;
    private final ShardRegistry shards;

    public ShardedDataDistribution(ConfigServer config, VersionedRouter router, RouterCursorManager cursors, PeerClient client,
            ShardRegistry shards) {
        this.config = config;
        this.router = router;
        this.cursors = cursors;
        this.client = client;
        this.shards = shards;
    }

    /** Whether {@code pipeline} uses the stage anywhere (it is then this class's to answer or refuse). */
    public static boolean uses(BsonArray pipeline) {
        return pipeline.stream().anyMatch(s -> s.isDocument() && s.asDocument().containsKey(STAGE));
    }

    /**
     * Answers an aggregate whose pipeline {@link #uses} the stage.
     *
     * @throws CommandException as listed on the class; the config service's or a shard's error
     */
    public BsonDocument aggregate(OperationContext opCtx, String db, BsonDocument command) {
        BsonValue target = command.get("aggregate");
        if (!"admin".equals(db) || target == null || !target.isNumber() || target.asNumber().intValue() != 1) {
            throw new CommandException(ErrorCode.InvalidNamespace,
                    STAGE + " must be run against the 'admin' database with {aggregate: 1}");
        }
        CommandArgs args = new CommandArgs(command);
        BsonArray pipeline = args.requiredArray("pipeline");
        BsonValue spec = pipeline.get(0).isDocument() ? pipeline.get(0).asDocument().get(STAGE) : null;
        if (spec == null) {
            throw new CommandException(ErrorCode.BadValue, STAGE + " is only valid as the first stage in a pipeline");
        }
        if (!spec.isDocument() || !spec.asDocument().isEmpty()) {
            throw new CommandException(ErrorCode.FailedToParse, "The " + STAGE + " stage specification must be an empty object");
        }
        BsonArray rest = new BsonArray(pipeline.getValues().subList(1, pipeline.size()));
        if (uses(rest)) {
            throw new CommandException(ErrorCode.BadValue, STAGE + " is only valid as the first stage in a pipeline");
        }
        int batchSize = ShardedReads.aggregateBatchSize(args, command);
        CommandVariables variables = CommandVariables.ofCommand(command); // let and collation
        PipelineSplit.run(rest, List.of(), NO_LOOKUP, variables); // the rest's parse errors before any shard is asked
        List<BsonDocument> distributions = new ArrayList<>();
        for (String namespace : shardedNamespaces()) {
            distribution(opCtx, namespace).ifPresent(distributions::add);
        }
        List<BsonDocument> results = PipelineSplit.run(rest, distributions, NO_LOOKUP, variables);
        return cursors.open(db, "$cmd.aggregate", DocumentStream.of(results), batchSize, false);
    }

    /** The {@code _id}s of {@code config.collections}. */
    private List<String> shardedNamespaces() {
        return config.find("collections", new BsonDocument()).stream().map(c -> c.getString("_id").getValue()).toList();
    }

    /** The collection's document, or empty when the router finds it unsharded (dropped meanwhile). */
    private Optional<BsonDocument> distribution(OperationContext opCtx, String namespace) {
        int dot = namespace.indexOf('.');
        return router.run(opCtx, namespace.substring(0, dot), namespace.substring(dot + 1), false, this::distribution).flatMap(d -> d);
    }

    private Optional<BsonDocument> distribution(CollectionRouting routing) {
        if (!routing.isSharded()) {
            return Optional.empty();
        }
        BsonArray perShard = new BsonArray();
        Set<String> owners = new HashSet<>(routing.allShards());
        for (String shard : new TreeSet<>(shards.all().keySet())) {
            BsonDocument reply = client.runChecked(shard, shards.hostOf(shard), "admin",
                    new BsonDocument("_shardsvrDataDistribution", new BsonString(routing.namespace())));
            BsonDocument entry = new BsonDocument("shardName", new BsonString(shard));
            for (String counter : COUNTERS) {
                BsonValue v = reply.get(counter);
                if (v == null || !v.isNumber()) {
                    throw new CommandException(ErrorCode.InternalError, "shard " + shard + " answered _shardsvrDataDistribution for "
                            + routing.namespace() + " without a numeric '" + counter + "': " + reply.toJson());
                }
                entry.append(counter, v);
            }
            if (owners.contains(shard) || entry.getNumber("numOrphanedDocs").longValue() > 0) {
                perShard.add(entry);
            }
        }
        return Optional.of(new BsonDocument("ns", new BsonString(routing.namespace())).append("shards", perShard));
    }
}
