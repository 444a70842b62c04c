package dev.shardstore.shard.storage;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.session.LogicalSessionId;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A multi-document transaction prepared for two-phase commit on this shard: PostgreSQL's prepared transaction
 * ({@code PREPARE TRANSACTION}), which survives a restart of the shard and of PostgreSQL, named by its global id.
 *
 * <p>The id carries what the shard needs to take the transaction up again after a restart, since nothing else of it
 * is readable before its decision: {@code shardstore-txn:<database>:<lsid as BSON, hex>:<txnNumber>:<first oplog time,
 * hex>:<count>} (PostgreSQL allows 200 characters; an lsid's BSON is about 30 bytes). The database is in it because a
 * global id is unique across the server's databases, and the shards of a local cluster share one server: two shards
 * prepare the same transaction.
 *
 * @param gid              the global id
 * @param lsid             its session
 * @param txnNumber        its transaction number
 * @param prepareTimestamp the prepare time (a Timestamp's 64-bit value): its newest oplog entry's time, or the time it
 *                         was prepared at when it wrote nothing
 * @param reservation      its oplog times, in flight (holding the all-durable point below them) until the decision is
 *                         applied; null when it wrote nothing
 */
public record PreparedTransaction(String gid, LogicalSessionId lsid, long txnNumber, long prepareTimestamp,
        OplogTimeReservations.@Nullable Reservation reservation) {
    static final String PREFIX = "shardstore-txn:";

    public PreparedTransaction {
        Objects.requireNonNull(gid, "gid");
        Objects.requireNonNull(lsid, "lsid");
    }

    /**
     * The global id of {@code lsid}'s transaction {@code txnNumber} in shard database {@code database}, whose oplog
     * entries have the times {@code [first, first + count)}.
     */
    static String gid(String database, LogicalSessionId lsid, long txnNumber, long first, int count) {
        if (!database.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException("a shard database's name is letters, digits and _: " + database);
        }
        return PREFIX + database + ":" + HexFormat.of().formatHex(BsonBytes.encode(lsid.toBson())) + ":" + txnNumber + ":"
                + Long.toHexString(first) + ":" + count;
    }

    /**
     * The parts of a global id made by {@link #gid}: empty for an id that is not this project's (another tool's
     * prepared transaction in the same database is left alone).
     */
    static Optional<Parsed> parse(String gid) {
        if (!gid.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String[] parts = gid.substring(PREFIX.length()).split(":");
        if (parts.length != 5) {
            return Optional.empty();
        }
        LogicalSessionId lsid = LogicalSessionId.parse(BsonBytes.decode(HexFormat.of().parseHex(parts[1])), "lsid");
        return Optional.of(new Parsed(lsid, Long.parseLong(parts[2]), Long.parseUnsignedLong(parts[3], 16), Integer.parseInt(parts[4])));
    }

    /** What a global id says. */
    record Parsed(LogicalSessionId lsid, long txnNumber, long first, int count) {}
}
