package dev.shardstore.config.settings;

import dev.shardstore.contracts.bson.BsonBytes;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.types.ObjectId;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * {@code config.actionlog} (table {@code actionlog}, MongoDB's): the balancer's {@code balancer.round} entries, shape
 * {@code {_id, server, time: Date, what, details: {executionTimeMillis, errorOccurred, candidateChunks, chunksMoved, ...}}}.
 */
@Repository
public class ActionLog {
    private final JdbcClient jdbc;

    public ActionLog(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Records one entry written by {@code server} and returns it as {@code find} shows it. */
    public BsonDocument record(String server, String what, BsonDocument details) {
        Instant now = Instant.now();
        String id = server + "-" + now + "-" + new ObjectId().toHexString();
        jdbc.sql("INSERT INTO actionlog (id, server, time, what, details) VALUES (?, ?, ?, ?, ?)")
                .params(id, server, Timestamp.from(now), what, BsonBytes.encode(details)).update();
        return document(id, server, now, what, details);
    }

    /** Every entry, oldest first. */
    public List<BsonDocument> list() {
        return jdbc.sql("SELECT id, server, time, what, details FROM actionlog ORDER BY seq")
                .query((rs, n) -> document(rs.getString("id"), rs.getString("server"), rs.getTimestamp("time").toInstant(),
                        rs.getString("what"), BsonBytes.decode(rs.getBytes("details"))))
                .list();
    }

    private static BsonDocument document(String id, String server, Instant time, String what, BsonDocument details) {
        return new BsonDocument("_id", new BsonString(id)).append("server", new BsonString(server))
                .append("time", new BsonDateTime(time.toEpochMilli())).append("what", new BsonString(what)).append("details", details);
    }
}
