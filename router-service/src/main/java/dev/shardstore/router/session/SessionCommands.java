package dev.shardstore.router.session;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.session.SessionsApi;
import dev.shardstore.support.command.CommandHandler;
import dev.shardstore.support.session.LogicalSessionCache;
import dev.shardstore.router.peer.PeerClient;
import dev.shardstore.router.routing.ShardRegistry;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The session commands of the router (mongo/src/mongo/db/s/README.md "Logical Sessions"), over its {@link LogicalSessionCache}:
 * <ul>
 *   <li>{@code {startSession: 1}} → {@code {id: {id: <UUID>}, timeoutMinutes, ok: 1}}: a new session, placed in the cache;</li>
 *   <li>{@code {endSessions: [lsid]}}: ended here, removed from the sessions collection at the next refresh, which then
 *       kills their cursors;</li>
 *   <li>{@code {refreshSessions: [lsid]}}: their {@code lastUse} is now, so they do not expire;</li>
 *   <li>{@code {killSessions: [lsid]}}: ended and their cursors killed now, and their open transactions aborted on
 *       every shard; an empty array kills every session in this router's cache (and every open transaction), as in
 *       MongoDB;</li>
 *   <li>{@code {killAllSessions: [{user, db}]}}: an empty array kills every session in the cache; without authentication
 *       no session has a user, so a non-empty user list matches none.</li>
 * </ul>
 */
@Configuration
public class SessionCommands {
    private static final Logger log = LoggerFactory.getLogger(SessionCommands.class);

    @Bean
    CommandHandler startSession(LogicalSessionCache sessions) {
        return CommandHandler.of("startSession", (db, cmd) -> {
            LogicalSessionId lsid = LogicalSessionId.random();
            sessions.vivify(lsid);
            return Replies.ok(new BsonDocument("id", lsid.toBson()).append("timeoutMinutes", new BsonInt32((int) sessions.timeout().toMinutes())));
        });
    }

    @Bean
    CommandHandler endSessions(LogicalSessionCache sessions) {
        return CommandHandler.of("endSessions", (db, cmd) -> {
            sessions.end(SessionsApi.lsids(cmd, "endSessions"));
            return Replies.ok();
        });
    }

    @Bean
    CommandHandler refreshSessions(LogicalSessionCache sessions) {
        return CommandHandler.of("refreshSessions", (db, cmd) -> {
            SessionsApi.lsids(cmd, "refreshSessions").forEach(sessions::vivify);
            return Replies.ok();
        });
    }

    @Bean
    CommandHandler killSessions(LogicalSessionCache sessions, PeerClient peers, ShardRegistry shards) {
        return CommandHandler.of("killSessions", (db, cmd) -> {
            var lsids = SessionsApi.lsids(cmd, "killSessions");
            if (lsids.isEmpty()) {
                sessions.killAll();
            } else {
                sessions.kill(lsids);
            }
            abortOnEveryShard(peers, shards, cmd.getArray("killSessions"));
            return Replies.ok();
        });
    }

    /**
     * Sends {@code killSessions} to every shard, which aborts the sessions' open transactions there (mongos sends it
     * to every shard too). A shard that does not answer is logged and left to its own reapers.
     */
    private static void abortOnEveryShard(PeerClient peers, ShardRegistry shards, BsonArray lsids) {
        for (Map.Entry<String, String> shard : shards.all().entrySet()) {
            try {
                BsonDocument reply = peers.run(shard.getKey(), shard.getValue(), "admin", new BsonDocument("killSessions", lsids));
                if (reply.getNumber("ok", new BsonInt32(0)).intValue() != 1) {
                    log.warn("killSessions on {} failed: {}", shard.getKey(), reply.toJson());
                }
            } catch (CommandException e) {
                log.warn("killSessions on {} failed: {}", shard.getKey(), e.getMessage());
            }
        }
    }

    @Bean
    CommandHandler killAllSessions(LogicalSessionCache sessions) {
        return CommandHandler.of("killAllSessions", (db, cmd) -> {
            if (!cmd.isArray("killAllSessions")) {
                throw new CommandException(ErrorCode.TypeMismatch, "'killAllSessions' must be an array of {user, db} documents");
            }
            if (cmd.getArray("killAllSessions").isEmpty()) {
                sessions.killAll();
            }
            return Replies.ok();
        });
    }
}
