package dev.shardstore.contracts.session;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.BiFunction;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;

/**
 * The session service's internal commands, through which every node's logical session cache syncs with the sessions
 * collection (mongo/src/mongo/db/s/README.md "How the logical session cache syncs with the sessions collection"):
 *
 * <pre>
 * {_sessionsRefresh: 1, sessions: [{_id: lsid, lastUse: Date}]}   → {ok: 1}              upsert, lastUse only moves forward
 * {_sessionsRemove: 1, sessions: [lsid]}                          → {ok: 1, n}           ended or killed sessions
 * {_sessionsFind: 1, sessions: [lsid]}                            → {ok: 1, found: [lsid]} those still stored
 * {_sessionsList: 1}                                              → {ok: 1, sessions: [{_id: lsid, lastUse}]}
 * </pre>
 *
 * A session record is {@code $listSessions}' shape: {@code {_id: {id, uid?}, lastUse: Date}}.
 */
public final class SessionsApi {
    public static final String REFRESH = "_sessionsRefresh";
    public static final String REMOVE = "_sessionsRemove";
    public static final String FIND = "_sessionsFind";
    public static final String LIST = "_sessionsList";

    private SessionsApi() {}

    /** One session as stored and as {@code $listSessions} shows it. */
    public record SessionRecord(LogicalSessionId lsid, Instant lastUse) {
        public BsonDocument toBson() {
            return new BsonDocument("_id", lsid.toBson()).append("lastUse", new BsonDateTime(lastUse.toEpochMilli()));
        }

        /** @throws CommandException TypeMismatch/Location40414 naming {@code path} when the record is malformed */
        public static SessionRecord parse(BsonValue value, String path) {
            if (!value.isDocument() || !value.asDocument().isDateTime("lastUse") || !value.asDocument().containsKey("_id")) {
                throw new CommandException(ErrorCode.TypeMismatch, "'" + path + "' must be {_id: <lsid>, lastUse: <Date>}");
            }
            return new SessionRecord(LogicalSessionId.parse(value.asDocument().get("_id"), path + "._id"),
                    Instant.ofEpochMilli(value.asDocument().getDateTime("lastUse").getValue()));
        }
    }

    /** {@code {<command>: 1, sessions: [...]}}. */
    public static BsonDocument command(String name, Collection<? extends BsonValue> sessions) {
        return new BsonDocument(name, new BsonInt32(1)).append("sessions", new BsonArray(new ArrayList<>(sessions)));
    }

    /** The lsids of an array field ({@code sessions}, {@code found}, {@code endSessions}, ...). */
    public static List<LogicalSessionId> lsids(BsonDocument document, String field) {
        return elements(document, field, "session ids", LogicalSessionId::parse);
    }

    /** The session records of an array field. */
    public static List<SessionRecord> records(BsonDocument document, String field) {
        return elements(document, field, "sessions", SessionRecord::parse);
    }

    private static <T> List<T> elements(BsonDocument document, String field, String what, BiFunction<BsonValue, String, T> parse) {
        if (!document.isArray(field)) {
            throw new CommandException(ErrorCode.TypeMismatch, "'" + field + "' must be an array of " + what);
        }
        List<T> elements = new ArrayList<>();
        BsonArray array = document.getArray(field);
        for (int i = 0; i < array.size(); i++) {
            elements.add(parse.apply(array.get(i), field + "." + i));
        }
        return elements;
    }
}
