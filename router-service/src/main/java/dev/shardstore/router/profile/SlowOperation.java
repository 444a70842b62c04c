package dev.shardstore.router.profile;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;

/**
 * One client command that ran longer than the slow threshold, in the shape of the {@code attr} of MongoDB's "Slow
 * query" log line.
 *
 * @param ts             when it ended
 * @param ns             {@code <db>.<collection>}, or {@code <db>.$cmd} for a command without a collection
 * @param commandName    the command's name ({@code find}, {@code aggregate}, ...)
 * @param command        the command as sent, without its session and gossip fields, cut to about 1 KB like MongoDB's
 *                       log ({@code {$truncated: "..."}})
 * @param durationMillis how long it ran in the router, in milliseconds, at least 0
 * @param errCode        0 when it succeeded, else its error code
 * @param transport      {@code rest} or {@code wire}
 * @param users          who ran it ({@code user@db}), empty without authentication
 */
public record SlowOperation(Instant ts, String ns, String commandName, BsonDocument command, long durationMillis, int errCode,
        String transport, List<String> users) {
    public SlowOperation {
        Objects.requireNonNull(ts, "ts");
        Objects.requireNonNull(ns, "ns");
        Objects.requireNonNull(commandName, "commandName");
        Objects.requireNonNull(transport, "transport");
        command = command.clone();
        users = List.copyOf(users);
        if (durationMillis < 0) {
            throw new IllegalArgumentException("a duration is not negative: " + durationMillis);
        }
    }

    @Override
    public BsonDocument command() {
        return command.clone();
    }

    /** {@code {ts, type: "command", ns, command, durationMillis, errCode?, transport, users}}. */
    public BsonDocument toBson() {
        BsonDocument entry = new BsonDocument("ts", new BsonDateTime(ts.toEpochMilli())).append("type", new BsonString("command"))
                .append("ns", new BsonString(ns)).append("command", command.clone()).append("durationMillis", new BsonInt64(durationMillis));
        if (errCode != 0) {
            entry.append("errCode", new BsonInt32(errCode));
        }
        return entry.append("transport", new BsonString(transport))
                .append("users", new BsonArray(users.stream().map(BsonString::new).toList()));
    }
}
