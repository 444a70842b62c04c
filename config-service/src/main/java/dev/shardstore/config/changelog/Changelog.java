package dev.shardstore.config.changelog;

import dev.shardstore.config.outbox.Outbox;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.event.CatalogEvent;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.types.ObjectId;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code config.changelog} (table {@code changelog}, MongoDB's): one entry per metadata change worth a trace, with
 * MongoDB's shape {@code {_id: "<server>-<time>-<ObjectId>", server, shard, clientAddr: "", time: Date, what, ns,
 * details: {...}}}. Shards record their chunk migrations here through {@code _configsvrLogChange} (best effort on their
 * side: a failed write never fails a migration).
 *
 * <p>The donor's {@code moveChunk.start} and {@code moveChunk.error} entries (whose {@code details} name {@code from}
 * and {@code to}) also append the {@code MIGRATION_STARTED} / {@code MIGRATION_ABORTED} catalog event, in the same
 * transaction: those events announce what the changelog records. ({@code MIGRATION_COMMITTED} accompanies the catalog
 * commit itself.)
 */
@Repository
public class Changelog {
    /** The donor's entry when a migration starts (MongoDB's). */
    public static final String MOVE_CHUNK_START = "moveChunk.start";
    /** The donor's entry when a migration aborted (MongoDB's). */
    public static final String MOVE_CHUNK_ERROR = "moveChunk.error";
    private static final Map<String, CatalogEvent.Type> EVENTS = Map.of(
            MOVE_CHUNK_START, CatalogEvent.Type.MIGRATION_STARTED,
            MOVE_CHUNK_ERROR, CatalogEvent.Type.MIGRATION_ABORTED);

    private final JdbcClient jdbc;
    private final Outbox outbox;
    private final TransactionTemplate tx;

    public Changelog(JdbcClient jdbc, Outbox outbox, TransactionTemplate tx) {
        this.jdbc = jdbc;
        this.outbox = outbox;
        this.tx = tx;
    }

    /**
     * Records one entry (and its migration event, see the class comment).
     *
     * @param server  who writes it (a shard's name, or "config")
     * @param shard   the shard it is about
     * @param what    e.g. {@code moveChunk.from}
     * @param ns      {@code db.coll}
     * @param details free-form; {@code from}/{@code to} strings for the entries that carry an event
     * @return the entry as {@code find} shows it
     */
    public BsonDocument record(String server, String shard, String what, String ns, BsonDocument details) {
        Instant now = Instant.now();
        String id = server + "-" + now + "-" + new ObjectId().toHexString();
        tx.executeWithoutResult(status -> {
            jdbc.sql("INSERT INTO changelog (id, server, shard, time, what, ns, details) VALUES (?, ?, ?, ?, ?, ?, ?)")
                    .params(id, server, shard, Timestamp.from(now), what, ns, BsonBytes.encode(details)).update();
            CatalogEvent.Type event = EVENTS.get(what);
            if (event != null && details.isString("from") && details.isString("to") && ns.indexOf('.') > 0) {
                outbox.appendMigration(event, ns, details.getString("from").getValue(), details.getString("to").getValue(), null);
            }
        });
        return document(id, server, shard, now, what, ns, details);
    }

    /** Every entry, oldest first. */
    public List<BsonDocument> list() {
        return jdbc.sql("SELECT id, server, shard, time, what, ns, details FROM changelog ORDER BY seq")
                .query((rs, n) -> document(rs.getString("id"), rs.getString("server"), rs.getString("shard"),
                        rs.getTimestamp("time").toInstant(), rs.getString("what"), rs.getString("ns"), BsonBytes.decode(rs.getBytes("details"))))
                .list();
    }

    private static BsonDocument document(String id, String server, String shard, Instant time, String what, String ns, BsonDocument details) {
        return new BsonDocument("_id", new BsonString(id))
                .append("server", new BsonString(server))
                .append("shard", new BsonString(shard))
                .append("clientAddr", new BsonString(""))
                .append("time", new BsonDateTime(time.toEpochMilli()))
                .append("what", new BsonString(what))
                .append("ns", new BsonString(ns))
                .append("details", details);
    }
}
