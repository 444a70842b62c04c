package dev.shardstore.shard.transaction;

import dev.shardstore.contracts.clock.ReadConcern;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.storage.OplogTimeReservations;
import dev.shardstore.shard.storage.SnapshotRead;
import dev.shardstore.shard.storage.TransactionResources;
import dev.shardstore.shard.storage.VersionStore;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.support.operation.OperationContext;
import java.time.Duration;
import java.util.Set;
import java.util.function.Function;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.springframework.stereotype.Component;

/**
 * Where a snapshot read ({@code readConcern: {level: "snapshot", atClusterTime?}}; docs/architecture.md "Snapshot
 * reads") begins on this shard: its time is chosen or checked, the writes up to it awaited, and, outside a
 * transaction, the command run in a read-only PostgreSQL transaction of its own whose snapshot it reads.
 *
 * <p>The time is {@code atClusterTime} when given (the router gives every shard of a read the same one), else this
 * shard's all-durable point, or {@code afterClusterTime} when that is later. Outside a transaction only {@code find},
 * {@code aggregate} and {@code distinct} read at a snapshot (InvalidOptions (72) for others, as MongoDB), and their
 * replies say the time read at ({@code cursor.atClusterTime}, {@code atClusterTime} for distinct).
 */
@Component
public class SnapshotReads {
    /** The commands that read at a snapshot outside a transaction (MongoDB's list; getMore reads the cursor's). */
    private static final Set<String> OUTSIDE_TRANSACTIONS = Set.of("find", "aggregate", "distinct");
    /** How long a snapshot read waits for the writes up to its time: they are commits already under way. */
    private static final Duration WRITES_WAIT = Duration.ofSeconds(30);

    private final OplogTimeReservations clock;
    private final VersionStore versions;
    private final WriteUnitOfWork units;

    public SnapshotReads(OplogTimeReservations clock, VersionStore versions, WriteUnitOfWork units) {
        this.clock = clock;
        this.versions = versions;
        this.units = units;
    }

    /**
     * Opens a snapshot read for {@code readConcern}: chooses its time, waits until every write at or before it is over
     * (a prepared transaction's decision included), and checks that history reaches it. Call before the read's
     * PostgreSQL snapshot is taken.
     *
     * @param transaction whether it is a multi-document transaction's
     * @throws CommandException SnapshotTooOld (239); MaxTimeMSExpired (50) when the writes do not end in time
     */
    public SnapshotRead open(ReadConcern readConcern, boolean transaction) {
        BsonTimestamp at = readConcern.atClusterTime();
        if (at == null) {
            at = clock.allDurable();
            BsonTimestamp after = readConcern.afterClusterTime();
            if (after != null && after.compareTo(at) > 0) {
                at = after;
            }
        }
        clock.awaitDurable(at, WRITES_WAIT);
        versions.checkWindow(at);
        return new SnapshotRead(at, transaction);
    }

    /**
     * Runs {@code body}, the command {@code name}, as a snapshot read outside a transaction, and puts the time read at
     * into its reply.
     *
     * @throws CommandException InvalidOptions (72) for a command that does not read at a snapshot outside a
     *                          transaction; as {@link #open}; what {@code body} throws
     */
    public BsonDocument read(OperationContext opCtx, String name, Function<OperationContext, BsonDocument> body) {
        if (!OUTSIDE_TRANSACTIONS.contains(name)) {
            throw new CommandException(ErrorCode.InvalidOptions, "readConcern level 'snapshot' is not supported by '" + name
                    + "' outside a multi-document transaction: only find, aggregate and distinct read at a snapshot");
        }
        SnapshotRead snapshot = open(opCtx.readConcern(), false);
        TransactionResources resources = units.beginTransaction();
        BsonDocument reply;
        try {
            reply = units.inTransaction(opCtx, resources, inTxn -> body.apply(snapshot.attach(inTxn)));
        } finally {
            units.abortTransaction(resources); // it only read
        }
        if (reply.isDocument("cursor")) {
            reply.getDocument("cursor").put(ReadConcern.AT_CLUSTER_TIME, snapshot.atClusterTime());
        } else {
            reply.put(ReadConcern.AT_CLUSTER_TIME, snapshot.atClusterTime());
        }
        return reply;
    }
}
