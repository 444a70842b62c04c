package dev.shardstore.shard.storage;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.BsonBytes;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The shard's oplog table (MongoDB's {@code local.oplog.rs}; docs/architecture.md "Shard storage and the oplog", Flyway {@code V3__oplog_readers.sql}),
 * one row per change:
 * <ul>
 *   <li>{@code ts_key}: the entry's cluster time, a Timestamp's 64-bit value {@code seconds << 32 | increment}
 *       with its sign bit flipped ({@link #storedTs}), the primary key. Timestamps compare unsigned and their
 *       seconds run to 2^32 - 1 (2106); flipping the sign bit turns unsigned order into the signed order of a
 *       PostgreSQL {@code bigint}, so entries from 2038 on (seconds &ge; 2^31) sort after earlier ones, in one
 *       8-byte B-tree key;</li>
 *   <li>{@code op}: {@code i} insert, {@code u} update (post-image in {@code o}), {@code d} delete, {@code c}
 *       command; {@code ns}: {@code db.coll}, or {@code db.$cmd} for commands;</li>
 *   <li>{@code ui}: the collection's UUID from this shard's catalog (null only for {@code dropDatabase} and for
 *       entries of collections dropped before this column existed), so a drop and re-create in between is seen;</li>
 *   <li>{@code o2}: the {@code documentKey} ({@link DocumentKeys}) of inserts, updates and deletes;
 *       {@code shard_key}: its shard key as a KeyString (null when unsharded), under a B-tree with {@code ui} and
 *       {@code ts_key} so that a chunk range {@code [min, max)} is an index range scan; {@code pre_shard_key}: the
 *       shard key before an update that changed it (null otherwise), so the update is found by the range it left
 *       as well as by the one it entered;</li>
 *   <li>{@code from_migrate}: written by chunk migration or range deletion ({@link WriteUnitOfWork#writeFromMigrate});</li>
 *   <li>{@code o}: the inserted document, the post-image, the command; null for deletes.</li>
 * </ul>
 * The session fields of a retryable write ({@code lsid}, {@code txn_number}, {@code stmt_id}, {@code prev_op_time},
 * {@code pre_image}; Flyway {@code V6__retryable_writes.sql}) are further nullable columns, see {@link SessionHistory}.
 *
 * <p>Entries are written only inside a {@link WriteUnitOfWork}, by the statement or transaction that makes the
 * change, so a change and its entry commit or roll back together; {@link OplogReader} reads them up to the
 * all-durable point.
 */
@Repository
public class Oplog {
    private final JdbcClient jdbc;
    private final WriteUnitOfWork units;

    public Oplog(JdbcClient jdbc, WriteUnitOfWork units) {
        this.jdbc = jdbc;
        this.units = units;
    }

    /** The stored form of a Timestamp's value: its sign bit flipped, so that signed order is Timestamp order. */
    static long storedTs(long ts) {
        return ts ^ Long.MIN_VALUE;
    }

    /** The Timestamp value of a stored {@code ts_key} (the inverse of {@link #storedTs}). */
    static long tsOf(long stored) {
        return stored ^ Long.MIN_VALUE;
    }

    /**
     * Appends a command entry ({@code op: c}, {@code ns: "<db>.$cmd"}, {@code o: command}), such as
     * {@code {create: "coll"}} or {@code {drop: "coll"}}, in {@code opCtx}'s unit of work.
     *
     * @param ui the collection the command is about; null for a database-wide one ({@code dropDatabase})
     * @return the entry's cluster time
     * @throws IllegalStateException outside a {@link WriteUnitOfWork}
     */
    public BsonTimestamp appendCommand(OperationContext opCtx, String db, @Nullable UUID ui, BsonDocument command) {
        long ts = units.reserve(opCtx, 1).first();
        jdbc.sql("INSERT INTO oplog (ts_key, op, ns, ui, from_migrate, o) VALUES (?, 'c', ?, ?, ?, ?)")
                .param(storedTs(ts))
                .param(db + ".$cmd")
                .param(ui)
                .param(units.fromMigrate(opCtx))
                .param(BsonBytes.encode(command))
                .update();
        return new BsonTimestamp(ts);
    }

    /**
     * SQL of one statement that changes documents and appends their oplog entries. It reads its input from
     * {@code unnest} arrays {@code (id, doc, o2, skey, pskey, pre)} — the {@code _id} KeyString, the document (null
     * for a delete), the documentKey, the shard key, the shard key before an update that changed it, and the document
     * before an update or a delete (the version store's pre-image, {@link VersionStore}) — as CTE
     * {@code src} with ordinality {@code n}; {@code change} is the data-modifying statement over {@code src} and
     * must return the changed ids as {@code id}. One oplog entry is appended per changed row, in input order,
     * with {@code ts_key = storedTs(firstTs) + n - 1}; the statement returns those {@code ts_key}s.
     *
     * <p>Parameters, in order: the six arrays, then the stored first time (of a {@link WriteUnitOfWork#reserve}
     * of the input's size, all in one second, so the offsets survive the sign flip), {@code ns}, {@code ui},
     * {@code fromMigrate}; with {@code sessionFields}, then the session fields of the retryable write that makes the
     * change ({@link SessionHistory}): {@code lsid}, {@code txnNumber}, the statement id of each input row as an
     * {@code int[]} (row {@code n} takes element {@code n}); the chain base (the stored first time for an insert batch,
     * whose row {@code n > 1} then points at row {@code n - 1}; null for a single statement), the stored
     * {@code prevOpTime} of the first row (null for none) and the chain base again; findAndModify's pre-image (null
     * otherwise). (A {@code bigint[]} of previous times would hold a NULL for a transaction's first write, and reading
     * element {@code n} of an array with NULLs walks it from the start.) Writing them with the entry rather than
     * updating the entry afterwards writes each oplog row and its index entries once, not twice (issue 10: the update
     * made a retryable batch insert cost PostgreSQL about six times the CPU of a plain one).
     *
     * <p>A {@code fromMigrate} entry ({@code withDocument} false) carries no document in {@code o}: no oplog reader reads
     * one (a migration's catch-up and resharding's oplog fetch skip such entries, the version store reads only
     * {@code pre}), and leaving it out halves what a migration's clone writes into the shard's database (issue 37).
     *
     * @param op           the oplog op letter ({@code i}, {@code u} or {@code d})
     * @param withDocument whether {@code o} holds the document (a client write) or stays NULL (a {@code fromMigrate} one)
     */
    static String changeStatement(String change, char op, boolean sessionFields, boolean withDocument) {
        return "WITH src AS (SELECT * FROM unnest(?::bytea[], ?::bytea[], ?::bytea[], ?::bytea[], ?::bytea[], ?::bytea[])"
                + " WITH ORDINALITY AS s(id, doc, o2, skey, pskey, pre, n)), "
                + "changed AS (" + change + ") "
                + "INSERT INTO oplog (ts_key, op, ns, ui, o2, shard_key, pre_shard_key, pre, from_migrate, o"
                + (sessionFields ? ", lsid, txn_number, stmt_id, prev_op_time, pre_image" : "") + ") "
                + "SELECT ?::bigint + src.n - 1, '" + op + "', ?, ?::uuid, src.o2, src.skey, src.pskey, src.pre, ?, " + (withDocument ? "src.doc" : "NULL")
                + (sessionFields ? ", ?::bytea, ?::bigint, (?::int[])[src.n],"
                        + " CASE WHEN src.n = 1 OR ?::bigint IS NULL THEN ?::bigint ELSE ?::bigint + src.n - 2 END, ?::bytea" : "")
                + " FROM src JOIN changed USING (id) ORDER BY src.n RETURNING ts_key";
    }
}
