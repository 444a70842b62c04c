package dev.shardstore.router.session;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.session.SessionsApi;
import dev.shardstore.engine.aggregate.CollectionSource;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.router.cursor.DocumentStream;
import dev.shardstore.router.cursor.RouterCursorManager;
import dev.shardstore.router.query.PipelineSplit;
import dev.shardstore.router.query.ShardedReads;
import dev.shardstore.support.session.LogicalSessionCache;
import dev.shardstore.support.session.LogicalSessionCacheProperties;
import dev.shardstore.router.peer.PeerClient;
import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The session aggregation stages (MongoDB manual, "$listSessions", "$listLocalSessions"), each only as the first stage:
 * <ul>
 *   <li>{@code {aggregate: "system.sessions", pipeline: [{$listSessions: {}}, ...]}} on {@code config}: the sessions
 *       collection, read from the session service;</li>
 *   <li>{@code {aggregate: 1, pipeline: [{$listLocalSessions: {}}, ...]}} on {@code admin}: this router's logical session
 *       cache.</li>
 * </ul>
 * Each yields {@code {_id: {id, uid?}, lastUse}} documents, then the rest of the pipeline runs on the router. The stage
 * takes {@code {}}, {@code {allUsers: true}} or {@code {users: [{user, db}]}}; without authentication no session has a
 * user, so a {@code users} list matches none.
 */
@Component
public class SessionStages {
    public static final String LIST_SESSIONS = "$listSessions";
    public static final String LIST_LOCAL_SESSIONS = "$listLocalSessions";
    private static final CollectionSource NO_LOOKUP = (collection, filter) -> List.of();

    private final LogicalSessionCache sessions;
    private final PeerClient client;
    private final String sessionUrl;
    private final RouterCursorManager cursors;

    public SessionStages(LogicalSessionCache sessions, PeerClient client, LogicalSessionCacheProperties properties, RouterCursorManager cursors) {
        this.sessions = sessions;
        this.client = client;
        this.sessionUrl = properties.sessionUrl();
        this.cursors = cursors;
    }

    /** The session stage {@code pipeline} starts with, or null when it starts with neither. */
    public static @Nullable String leadingStage(BsonArray pipeline) {
        if (pipeline.isEmpty() || !pipeline.get(0).isDocument() || pipeline.get(0).asDocument().isEmpty()) {
            return null;
        }
        String name = pipeline.get(0).asDocument().getFirstKey();
        return name.equals(LIST_SESSIONS) || name.equals(LIST_LOCAL_SESSIONS) ? name : null;
    }

    /**
     * Runs the aggregate whose first stage is {@code stage}.
     *
     * @throws CommandException InvalidNamespace when run on another namespace than the stage's; FailedToParse for a bad
     *                          stage specification; BadValue when a session stage is not first
     */
    public BsonDocument aggregate(String db, BsonDocument command, String stage) {
        CommandArgs args = new CommandArgs(command);
        // the command's first field, by which it was dispatched here
        BsonValue target = Objects.requireNonNull(command.get("aggregate"), "aggregate");
        boolean local = stage.equals(LIST_LOCAL_SESSIONS);
        boolean rightNamespace = local
                ? "admin".equals(db) && target.isNumber() && target.asNumber().intValue() == 1
                : "config".equals(db) && target.isString() && target.asString().getValue().equals("system.sessions");
        if (!rightNamespace) {
            throw new CommandException(ErrorCode.InvalidNamespace, stage + " must be run " + (local
                    ? "against the 'admin' database with {aggregate: 1}" : "on config.system.sessions"));
        }
        BsonArray pipeline = args.requiredArray("pipeline");
        BsonValue spec = Objects.requireNonNull(pipeline.get(0).asDocument().get(stage), () -> "the pipeline does not start with " + stage);
        boolean anyUser = anyUser(spec, stage);
        BsonArray rest = new BsonArray(pipeline.getValues().subList(1, pipeline.size()));
        if (rest.stream().anyMatch(s -> s.isDocument() && !s.asDocument().isEmpty() && leadingStage(new BsonArray(List.of(s))) != null)) {
            throw new CommandException(ErrorCode.BadValue, stage + " is only valid as the first stage in a pipeline");
        }
        int batchSize = ShardedReads.aggregateBatchSize(args, command);
        List<BsonDocument> records = !anyUser ? List.of() : local
                ? sessions.localSessions().stream().map(SessionsApi.SessionRecord::toBson).toList()
                : SessionsApi.records(client.runChecked("sessions", sessionUrl, "config", new BsonDocument(SessionsApi.LIST, new BsonInt32(1))),
                        "sessions").stream().map(SessionsApi.SessionRecord::toBson).toList();
        List<BsonDocument> results = PipelineSplit.run(rest, records, NO_LOOKUP, CommandVariables.ofCommand(command));
        return cursors.open(db, local ? "$cmd.aggregate" : "system.sessions", DocumentStream.of(results), batchSize, false);
    }

    /** Whether the stage's spec selects sessions of any user ({@code {}} or {@code allUsers: true}) rather than a user list. */
    private static boolean anyUser(BsonValue spec, String stage) {
        if (!spec.isDocument()) {
            throw new CommandException(ErrorCode.FailedToParse, stage + " takes a document, not " + spec.getBsonType());
        }
        for (String field : spec.asDocument().keySet()) {
            if (!field.equals("allUsers") && !field.equals("users")) {
                throw new CommandException(ErrorCode.FailedToParse, "BSON field '" + stage + "." + field + "' is an unknown field.");
            }
        }
        if (spec.asDocument().containsKey("users") && !spec.asDocument().isArray("users")) {
            throw new CommandException(ErrorCode.TypeMismatch, "'" + stage + ".users' must be an array of {user, db}");
        }
        return !spec.asDocument().containsKey("users") || spec.asDocument().getArray("users").isEmpty();
    }
}
