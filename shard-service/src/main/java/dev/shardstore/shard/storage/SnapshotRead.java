package dev.shardstore.shard.storage;

import dev.shardstore.support.operation.OperationContext;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * A read at one cluster time ({@code readConcern: {level: "snapshot"}}; docs/architecture.md "Snapshot reads"), as it
 * travels in the operation's context: its time, and the overlay of each collection it read ({@link VersionStore}),
 * computed once in the read's PostgreSQL snapshot and kept for the read's life. A transaction's lives as long as the
 * transaction (its statements share one snapshot, {@link WriteUnitOfWork#inTransaction}); a find, aggregate or
 * distinct's outside one, as long as the command. Thread-safe.
 */
public final class SnapshotRead {
    private static final OperationContext.Decoration<SnapshotRead> KEY = new OperationContext.Decoration<>("snapshotRead", SnapshotRead.class);

    private final BsonTimestamp atClusterTime;
    private final boolean transaction;
    private final Map<UUID, VersionStore.Overlay> overlays = new ConcurrentHashMap<>();

    /**
     * @param atClusterTime the time read at; every write at or before it must be durable before the read's snapshot is
     *                      taken ({@link OplogTimeReservations#awaitDurable})
     * @param transaction   whether it is a multi-document transaction's, whose cursors read their later batches in the
     *                      same snapshot (otherwise a cursor's batches are read before the command returns)
     */
    public SnapshotRead(BsonTimestamp atClusterTime, boolean transaction) {
        this.atClusterTime = Objects.requireNonNull(atClusterTime, "atClusterTime");
        this.transaction = transaction;
    }

    /** The snapshot read {@code opCtx}'s command makes, or null for a read of the current data. */
    public static @Nullable SnapshotRead of(OperationContext opCtx) {
        return opCtx.get(KEY);
    }

    /** {@code opCtx} reading at this snapshot. */
    public OperationContext attach(OperationContext opCtx) {
        return opCtx.with(KEY, this);
    }

    public BsonTimestamp atClusterTime() {
        return atClusterTime;
    }

    /** Whether it is a multi-document transaction's (see the constructor). */
    public boolean transaction() {
        return transaction;
    }

    /**
     * The overlay of {@code c} at this read's time, read from {@code versions} on the first call for {@code c}.
     *
     * @param ownedThen the read's ownership at this time by encoded shard key ({@link VersionStore#overlay(CollectionInfo,
     *                  BsonTimestamp, Predicate)}); null for an unversioned read
     */
    VersionStore.Overlay overlay(VersionStore versions, CollectionInfo c, @Nullable Predicate<byte[]> ownedThen) {
        return overlays.computeIfAbsent(c.uuid(), uuid -> versions.overlay(c, atClusterTime, ownedThen));
    }
}
