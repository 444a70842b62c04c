package dev.shardstore.resharding.command;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.resharding.coordinator.ReshardingCoordinator;
import dev.shardstore.resharding.coordinator.ReshardingOperation;
import dev.shardstore.resharding.coordinator.ReshardingRequest;
import dev.shardstore.support.command.CommandHandler;
import dev.shardstore.support.parameter.ServerParameters;
import java.util.Map;
import java.util.Set;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.UuidRepresentation;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * MongoDB's resharding commands as the routers forward them here (mongos sends them on to the config server, where
 * MongoDB's coordinator runs), all on {@code admin}. Options this version does not implement are refused naming the
 * option, never ignored: {@code unique: true}, a {@code collation} other than simple and {@code zones} are
 * NotImplemented (238); a field reshardCollection does not know is InvalidOptions (72).
 */
@Configuration
public class ReshardingCommands {
    /** reshardCollection's own fields and the generic ones any command may carry ({@code $}-prefixed ones too). */
    private static final Set<String> KNOWN = Set.of("reshardCollection", "key", "unique", "numInitialChunks", "collation",
            "zones", "forceRedistribution", "maxTimeMS", "lsid", "txnNumber", "writeConcern", "readConcern", "comment",
            "apiVersion", "apiStrict", "apiDeprecationErrors");

    /**
     * {@code {reshardCollection: "db.coll", key, unique?: false, numInitialChunks?, collation?: {locale: "simple"},
     * forceRedistribution?}} → {@code {reshardingUUID, ok: 1}} once the new layout is committed; ReshardCollectionAborted
     * (341) when it aborted; ReshardCollectionInProgress (338) while another one reshards the collection. A retried
     * identical command joins the running operation, or gets its outcome while it is quiesced. Without
     * {@code numInitialChunks} the new key starts with one chunk per recipient (MongoDB's default).
     */
    /** {@code getParameter} on {@code admin}: this service's server parameters ({@link ServerParameters}). */
    @Bean
    CommandHandler getParameter(ServerParameters parameters) {
        return CommandHandler.of("getParameter", (db, cmd) -> {
            onAdmin(db, "getParameter");
            return Replies.ok(parameters.get(cmd, Map.of()));
        });
    }

    /** {@code setParameter} on {@code admin}, which the router sends here for {@code reshardingCriticalSectionTimeoutMillis}. */
    @Bean
    CommandHandler setParameter(ServerParameters parameters) {
        return CommandHandler.of("setParameter", (db, cmd) -> {
            onAdmin(db, "setParameter");
            return Replies.ok(parameters.set(cmd));
        });
    }

    private static void onAdmin(String db, String command) {
        if (!"admin".equals(db)) {
            throw new CommandException(ErrorCode.IllegalOperation, command + " may only be run against the admin database");
        }
    }

    @Bean
    CommandHandler reshardCollection(ReshardingCoordinator coordinator) {
        return CommandHandler.of("reshardCollection", (db, cmd) -> {
            ReshardingOperation done = coordinator.reshard(parse(cmd));
            return Replies.ok(new BsonDocument("reshardingUUID", new BsonBinary(done.id(), UuidRepresentation.STANDARD)));
        });
    }

    /**
     * {@code {abortReshardCollection: "db.coll"}} → {@code {ok: 1}} once the operation has aborted; NoSuchReshardCollection
     * (339) when none runs; ReshardCollectionCommitted (340) once its commit was decided.
     */
    @Bean
    CommandHandler abortReshardCollection(ReshardingCoordinator coordinator) {
        return CommandHandler.of("abortReshardCollection", (db, cmd) -> {
            coordinator.abort(Namespace.parse(new CommandArgs(cmd).requiredString("abortReshardCollection"), "abortReshardCollection"));
            return Replies.ok();
        });
    }

    /**
     * {@code {commitReshardCollection: "db.coll"}} → {@code {ok: 1}} once the running operation has committed
     * ({@link ReshardingCoordinator#commit}); NoSuchReshardCollection (339) when none runs.
     */
    @Bean
    CommandHandler commitReshardCollection(ReshardingCoordinator coordinator) {
        return CommandHandler.of("commitReshardCollection", (db, cmd) -> {
            coordinator.commit(Namespace.parse(new CommandArgs(cmd).requiredString("commitReshardCollection"), "commitReshardCollection"));
            return Replies.ok();
        });
    }

    /**
     * The request of a reshardCollection command.
     *
     * @throws CommandException NotImplemented (238) naming an option this version does not implement; InvalidOptions (72)
     *                          naming a field reshardCollection does not know;
     *                          FailedToParse/TypeMismatch/BadValue naming a malformed field
     */
    static ReshardingRequest parse(BsonDocument cmd) {
        CommandArgs args = new CommandArgs(cmd);
        Namespace namespace = Namespace.parse(args.requiredString("reshardCollection"), "reshardCollection");
        for (String field : cmd.keySet()) {
            if (!KNOWN.contains(field) && !field.startsWith("$")) {
                throw new CommandException(ErrorCode.InvalidOptions, "reshardCollection does not take the option '" + field + "'");
            }
        }
        BsonDocument key = args.document(args.required(cmd, "key", "key"), "key");
        if (key.isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "'key' must name at least one field");
        }
        if (args.optionalBoolean(cmd, "unique", "unique", false)) {
            throw new CommandException(ErrorCode.NotImplemented, "'unique: true' is not supported by reshardCollection (a unique new key)");
        }
        BsonValue collation = cmd.get("collation");
        if (collation != null && !isSimple(args.document(collation, "collation"))) {
            throw new CommandException(ErrorCode.NotImplemented, "'collation' must be the simple collation ({locale: \"simple\"}); "
                    + "resharding with another collation is not supported");
        }
        if (cmd.containsKey("zones")) {
            throw new CommandException(ErrorCode.NotImplemented, "'zones' is not supported by reshardCollection yet: reshard without it, "
                    + "then set the zones of the new key (updateZoneKeyRange)");
        }
        long chunks = args.optionalNonNegative("numInitialChunks", 0);
        if (cmd.containsKey("numInitialChunks") && (chunks < 1 || chunks > 1_000_000)) {
            throw new CommandException(ErrorCode.BadValue, "'numInitialChunks' must be 1..1000000, not " + chunks);
        }
        return new ReshardingRequest(namespace, key, (int) chunks, args.optionalBoolean(cmd, "forceRedistribution", "forceRedistribution", false));
    }

    private static boolean isSimple(BsonDocument collation) {
        return collation.isEmpty() || (collation.size() == 1 && collation.containsKey("locale")
                && collation.get("locale").isString() && collation.getString("locale").getValue().equals("simple"));
    }
}
