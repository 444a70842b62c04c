package dev.shardstore.shard.versioning;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorLabel;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.Objects;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;

/**
 * The filtering metadata snapshot of one versioned command on a sharded collection (MongoDB's
 * ScopedCollectionFilter; mongo/src/mongo/db/s/README.md "Orphan filtering"): which documents this shard owns, by their shard key,
 * as of the routing table the shard version check accepted. Reads and multi-writes skip the documents it does
 * not own (orphans left by migrations); writes may not create documents it does not own. Immutable.
 *
 * @param table    the routing table the command runs against
 * @param shard    this shard's name
 * @param received the shard version the command carried (for StaleConfig errors)
 */
public record OwnershipFilter(RoutingTable table, String shard, ChunkVersion received) {
    public OwnershipFilter {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(shard, "shard");
        Objects.requireNonNull(received, "received");
    }

    public String namespace() {
        return table.namespace();
    }

    /**
     * Whether this shard owns {@code document}. A document whose shard key cannot be extracted (an array on the
     * shard key path, which no sharded collection may hold) belongs to no chunk, so to no shard.
     */
    public boolean owns(BsonDocument document) {
        return owns(table, shard, document);
    }

    /** Whether this shard owns the encoded shard key {@code key}. */
    public boolean ownsKey(byte[] key) {
        return table.owns(shard, key);
    }

    /**
     * This filter for a read at cluster time {@code at}: the placement then ({@link RoutingTable#atClusterTime}), so a
     * snapshot read sees what this shard owned at its time — a range it donated since, not one it received since
     * (docs/architecture.md "The historical routing table"). Only reads may use it; writes keep today's placement.
     *
     * @throws CommandException StaleChunkHistory (183) when the chunks' history does not reach back to {@code at}
     */
    public OwnershipFilter atClusterTime(BsonTimestamp at) {
        RoutingTable then = table.atClusterTime(at);
        return then == table ? this : new OwnershipFilter(then, shard, received);
    }

    /**
     * Checks that a write of a transaction reading at {@code at} may run here: that no chunk came to or left this
     * shard since, so the placement its reads followed is still this shard's (MongoDB's storage engine would see the
     * migration's writes after the snapshot as a write conflict).
     *
     * @throws CommandException WriteConflict (112), labelled TransientTransactionError
     */
    public void requirePlacementUnchangedSince(BsonTimestamp at) {
        if (table.placementChangedSince(shard, at)) {
            throw new CommandException(ErrorCode.WriteConflict, "Write conflict during a multi-document transaction: a chunk of "
                    + namespace() + " moved to or from shard " + shard + " after the transaction's atClusterTime " + at,
                    ErrorLabel.TransientTransactionError.extraInfo());
        }
    }

    /** Whether {@code table} gives {@code document} to {@code shard}; see {@link #owns(BsonDocument)}. */
    public static boolean owns(RoutingTable table, String shard, BsonDocument document) {
        byte[] key;
        try {
            key = table.shardKey().keyOf(document);
        } catch (CommandException e) {
            return false;
        }
        return table.owns(shard, key);
    }

    /**
     * Checks that a document about to be inserted falls in a chunk of this shard.
     *
     * @throws CommandException StaleConfig (13388) with this shard's version as {@code vWanted} when another shard
     *                          owns it (the router targeted with stale routing); ShardKeyNotFound (61) when its
     *                          shard key holds an array
     */
    public void checkInsert(BsonDocument document) {
        if (!table.owns(shard, table.shardKey().keyOf(document))) {
            throw new StaleConfig(namespace(), received, table.shardVersion(shard), shard).toException();
        }
    }

    /**
     * Checks that an updated document still falls in a chunk of this shard.
     *
     * @param before the document before the update
     * @param after  the document after it
     * @throws CommandException WouldChangeOwningShard (283) naming the new shard key when it moved to another
     *                          shard's chunk, with MongoDB's {@code WouldChangeOwningShardInfo} as extra info
     *                          ({@code preImage}, {@code postImage}, {@code shouldUpsert: false}): a router in a
     *                          transaction moves the document as a delete and an insert with it; ShardKeyNotFound (61)
     *                          when its shard key now holds an array
     */
    public void checkUpdate(BsonDocument before, BsonDocument after) {
        if (!table.owns(shard, table.shardKey().keyOf(after))) {
            throw wouldChangeOwningShard(after, new BsonDocument(PRE_IMAGE, before).append(POST_IMAGE, after)
                    .append("shouldUpsert", BsonBoolean.FALSE));
        }
    }

    /**
     * Checks that a document an update creates (a time-series bucket for the measurements it moved) falls in a chunk
     * of this shard.
     *
     * @throws CommandException WouldChangeOwningShard (283) naming its shard key when another shard owns it;
     *                          ShardKeyNotFound (61) when its shard key holds an array
     */
    public void checkCreated(BsonDocument document) {
        if (!table.owns(shard, table.shardKey().keyOf(document))) {
            throw wouldChangeOwningShard(document, new BsonDocument());
        }
    }

    /** The extra info's field of the document before an update that would change its owning shard. */
    public static final String PRE_IMAGE = "preImage";
    /** The extra info's field of the document after it. */
    public static final String POST_IMAGE = "postImage";

    private CommandException wouldChangeOwningShard(BsonDocument after, BsonDocument info) {
        return new CommandException(ErrorCode.WouldChangeOwningShard, "the update would change the owning shard of the document: "
                + "its new shard key " + table.shardKey().extractKey(after).toJson() + " of " + namespace() + " belongs to shard "
                + table.chunkFor(after).shard() + ", not to " + shard, info);
    }
}
