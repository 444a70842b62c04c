package dev.shardstore.support.operation;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.security.Principal;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The options of a {@code $currentOp} aggregation stage, MongoDB manual "$currentOp (aggregation)":
 * {@code db.adminCommand({aggregate: 1, pipeline: [{$currentOp: {allUsers, localOps, idleConnections, idleCursors,
 * idleSessions, backtrace}}, ...], cursor: {}})}. Shards and routers parse it here alike.
 *
 * <p>Errors, MongoDB's: InvalidNamespace (73) unless on {@code admin} with {@code aggregate: 1}; Location40602 when
 * {@code $currentOp} is not the first stage; FailedToParse (9) for options that are not a document or an unknown
 * option (named); TypeMismatch (14) for an option that is not a boolean (named); NotImplemented (238) for
 * {@code idleConnections}, {@code idleCursors}, {@code idleSessions} or {@code backtrace} set true, which this store
 * does not report (named, never ignored).
 *
 * @param allUsers whether to list every user's operations (needs {@code inprog} on the cluster), not only the caller's
 * @param localOps on a router, whether to list its own operations only instead of the whole cluster's
 */
public record CurrentOpRequest(boolean allUsers, boolean localOps) {
    /** The stage's name. */
    public static final String STAGE = "$currentOp";
    private static final Set<String> NOT_REPORTED = Set.of("idleConnections", "idleCursors", "idleSessions", "backtrace");

    /** Whether {@code pipeline} uses the stage anywhere (the aggregate is then {@code $currentOp}'s to answer or refuse). */
    public static boolean uses(@Nullable BsonValue pipeline) {
        return pipeline != null && pipeline.isArray()
                && pipeline.asArray().stream().anyMatch(s -> s.isDocument() && s.asDocument().containsKey(STAGE));
    }

    /**
     * The options of the aggregate {@code command} on {@code db}, whose pipeline {@link #uses} the stage.
     *
     * @throws CommandException as listed on the class
     */
    public static CurrentOpRequest parse(String db, BsonDocument command) {
        BsonValue target = command.get("aggregate");
        if (!"admin".equals(db) || target == null || !target.isNumber() || target.asNumber().doubleValue() != 1) {
            throw new CommandException(ErrorCode.InvalidNamespace, STAGE + " must be run against the 'admin' database with {aggregate: 1}");
        }
        List<BsonValue> stages = command.getArray("pipeline").getValues();
        BsonValue spec = stages.getFirst().isDocument() ? stages.getFirst().asDocument().get(STAGE) : null;
        if (spec == null || uses(new BsonArray(stages.subList(1, stages.size())))) {
            throw new CommandException(ErrorCode.Location40602, STAGE + " is only valid as the first stage in a pipeline");
        }
        if (!spec.isDocument()) {
            throw new CommandException(ErrorCode.FailedToParse, STAGE + " options must be specified in an object, but found: "
                    + typeName(spec));
        }
        boolean allUsers = false;
        boolean localOps = false;
        for (var option : spec.asDocument().entrySet()) {
            String name = option.getKey();
            if (!name.equals("allUsers") && !name.equals("localOps") && !NOT_REPORTED.contains(name)) {
                throw new CommandException(ErrorCode.FailedToParse, "Unrecognized option '" + name + "' in " + STAGE + " stage.");
            }
            if (!option.getValue().isBoolean()) {
                throw new CommandException(ErrorCode.TypeMismatch, "The '" + name + "' parameter of the " + STAGE
                        + " stage must be a boolean value, but found: " + typeName(option.getValue()));
            }
            boolean value = option.getValue().asBoolean().getValue();
            if (NOT_REPORTED.contains(name) && value) {
                throw new CommandException(ErrorCode.NotImplemented, STAGE + " option '" + name
                        + ": true' is not supported: this store lists active operations only");
            }
            allUsers = name.equals("allUsers") ? value : allUsers;
            localOps = name.equals("localOps") ? value : localOps;
        }
        return new CurrentOpRequest(allUsers, localOps);
    }

    /** The stages after {@code $currentOp} in {@code command}'s pipeline, which run on its documents. */
    public static BsonArray following(BsonDocument command) {
        List<BsonValue> stages = command.getArray("pipeline").getValues();
        return new BsonArray(stages.subList(1, stages.size()));
    }

    /**
     * Whether the request shows {@code caller} every operation, the process's own work included: with
     * {@code allUsers}, to a cluster member (a router fanning out), or when authorization is off (without users every
     * operation is everyone's, as in MongoDB).
     */
    public boolean showsEveryOperation(Caller caller, boolean authorizationEnforced) {
        return allUsers || !authorizationEnforced || caller.principal().kind() == Principal.Kind.SYSTEM;
    }

    /**
     * Whether the request shows {@code op} to {@code caller}: every operation when it {@link #showsEveryOperation},
     * else only those run by one of the caller's authenticated users (none to a caller that is not).
     */
    public boolean shows(RunningOperation op, Caller caller, boolean authorizationEnforced) {
        return showsEveryOperation(caller, authorizationEnforced) || caller.principal().users().stream().anyMatch(op::runsFor);
    }

    /** The {@code $currentOp} documents of {@code operations}' running operations that the request {@link #shows} the caller. */
    public List<BsonDocument> list(OperationRegistry operations, Caller caller, boolean authorizationEnforced) {
        return operations.running().stream().filter(op -> shows(op, caller, authorizationEnforced)).map(operations::describe).toList();
    }

    private static String typeName(BsonValue value) {
        return value.getBsonType().name().toLowerCase(Locale.ROOT);
    }
}
