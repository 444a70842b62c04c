package dev.shardstore.session.store;

import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.session.SessionsApi;
import dev.shardstore.contracts.session.SessionsApi.SessionRecord;
import dev.shardstore.session.store.SessionsCollection.StoredSession;
import dev.shardstore.support.command.CommandHandler;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The session service's commands ({@link SessionsApi} gives their shapes), served on its internal endpoint. */
@Configuration
public class SessionCommands {
    @Bean
    CommandHandler sessionsRefresh(SessionsCollection sessions) {
        return CommandHandler.of(SessionsApi.REFRESH, (db, cmd) -> {
            sessions.upsert(SessionsApi.records(cmd, "sessions").stream().map(r -> new StoredSession(r.lsid(), r.lastUse())).toList());
            return Replies.ok();
        });
    }

    @Bean
    CommandHandler sessionsRemove(SessionsCollection sessions) {
        return CommandHandler.of(SessionsApi.REMOVE,
                (db, cmd) -> Replies.ok(new BsonDocument("n", new BsonInt32(sessions.remove(SessionsApi.lsids(cmd, "sessions"))))));
    }

    @Bean
    CommandHandler sessionsFind(SessionsCollection sessions) {
        return CommandHandler.of(SessionsApi.FIND, (db, cmd) -> Replies.ok(new BsonDocument("found",
                new BsonArray(sessions.existing(SessionsApi.lsids(cmd, "sessions")).stream().<BsonValue>map(LogicalSessionId::toBson).toList()))));
    }

    @Bean
    CommandHandler sessionsList(SessionsCollection sessions) {
        return CommandHandler.of(SessionsApi.LIST, (db, cmd) -> {
            List<BsonValue> records = sessions.all().stream().<BsonValue>map(s -> new SessionRecord(s.lsid(), s.lastUse()).toBson()).toList();
            return Replies.ok(new BsonDocument("sessions", new BsonArray(records)));
        });
    }
}
