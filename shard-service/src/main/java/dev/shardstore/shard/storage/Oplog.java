package dev.shardstore.shard.storage;

import dev.shardstore.contracts.bson.BsonBytes;
import org.bson.BsonDocument;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The shard's oplog table (MongoDB's {@code local.oplog.rs}): {@code ts} (cluster time as a Timestamp
 * value), {@code op} ({@code i} insert, {@code u} update with post-image, {@code d} delete, {@code c}
 * command), {@code ns}, {@code o2} (document key {@code {_id}}) and {@code o}. Entries are always
 * written by the statement or transaction that makes the change, so a change and its entry commit or
 * roll back together.
 */
@Repository
public class Oplog {
    private final JdbcClient jdbc;
    private final ClusterClock clock;

    public Oplog(JdbcClient jdbc, ClusterClock clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    /**
     * Appends a command entry ({@code op: c}, {@code ns: "<db>.$cmd"}, {@code o: command}), such as
     * {@code {create: "coll"}} or {@code {drop: "coll"}}. Call it inside the transaction of the change.
     */
    public void appendCommand(String db, BsonDocument command) {
        jdbc.sql("INSERT INTO oplog (ts, op, ns, o) VALUES (?, 'c', ?, ?)")
                .param(clock.reserve(1))
                .param(db + ".$cmd")
                .param(BsonBytes.encode(command))
                .update();
    }

    /**
     * SQL of one statement that changes documents and appends their oplog entries. It reads its
     * input from {@code unnest} arrays ({@code id, doc, o2} with a document, {@code id, o2} without)
     * as CTE {@code src} with ordinality {@code n}; {@code change} is the data-modifying statement over
     * {@code src} and must return the changed ids as {@code id}. One oplog entry is appended per changed
     * row, in input order, with {@code ts = firstTs + n - 1}; the statement returns those {@code ts}.
     *
     * <p>Parameters, in order: the arrays, then {@code firstTs} (a reservation of the input's size from
     * {@link ClusterClock#reserve}), then {@code ns}.
     *
     * @param op           the oplog op letter ({@code i}, {@code u} or {@code d})
     * @param withDocument whether the input carries documents, which then become the entries' {@code o}
     */
    static String changeStatement(String change, char op, boolean withDocument) {
        String columns = withDocument ? "id, doc, o2, n" : "id, o2, n";
        String arrays = withDocument ? "?::bytea[], ?::bytea[], ?::bytea[]" : "?::bytea[], ?::bytea[]";
        return "WITH src AS (SELECT * FROM unnest(" + arrays + ") WITH ORDINALITY AS s(" + columns + ")), "
                + "changed AS (" + change + ") "
                + "INSERT INTO oplog (ts, op, ns, o2, o) "
                + "SELECT ?::bigint + src.n - 1, '" + op + "', ?, src.o2, " + (withDocument ? "src.doc" : "NULL")
                + " FROM src JOIN changed USING (id) ORDER BY src.n RETURNING ts";
    }
}
