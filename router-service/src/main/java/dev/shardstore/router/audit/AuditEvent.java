package dev.shardstore.router.audit;

import dev.shardstore.support.security.RoleName;
import dev.shardstore.support.security.UserName;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;

/**
 * One audit event, MongoDB's audit message (MongoDB manual, "Audit Messages"): {@code {atype, ts, remote: {ip, port},
 * users: [{user, db}], roles: [{role, db}], param, result}}.
 *
 * @param atype  what happened: {@code authenticate}, or the command's name ({@code createUser}, {@code dropCollection},
 *               {@code shardCollection}, {@code moveChunk}, ...)
 * @param ts     when it ended
 * @param remote the client's address; null when the front end does not know it
 * @param users  who acted (empty: nobody authenticated)
 * @param roles  their roles
 * @param param  what was asked: for {@code authenticate} {@code {user, db, mechanism}}, for a command its fields
 *               without passwords and without the session and gossip fields
 * @param result 0 on success, else the MongoDB error code (18 a failed authentication, 13 a refused command)
 */
public record AuditEvent(String atype, Instant ts, @Nullable InetSocketAddress remote, List<UserName> users, List<RoleName> roles,
        BsonDocument param, int result) {
    public AuditEvent {
        Objects.requireNonNull(atype, "atype");
        Objects.requireNonNull(ts, "ts");
        users = List.copyOf(users);
        roles = List.copyOf(roles);
        param = param.clone();
    }

    @Override
    public BsonDocument param() {
        return param.clone();
    }

    /** The event as MongoDB writes it. */
    public BsonDocument toBson() {
        BsonDocument event = new BsonDocument("atype", new BsonString(atype)).append("ts", new BsonDateTime(ts.toEpochMilli()));
        if (remote != null) {
            event.append("remote", new BsonDocument("ip", new BsonString(remote.getAddress() == null ? remote.getHostString()
                    : remote.getAddress().getHostAddress())).append("port", new BsonInt32(remote.getPort())));
        }
        return event.append("users", new BsonArray(users.stream().map(UserName::toBson).toList()))
                .append("roles", new BsonArray(roles.stream().map(RoleName::toBson).toList()))
                .append("param", param.clone())
                .append("result", new BsonInt32(result));
    }
}
