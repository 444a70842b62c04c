package dev.shardstore.config.catalog;

import dev.shardstore.contracts.version.ChunkVersion;
import java.util.Objects;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * What the caller of a chunk commit believes about the collection: its epoch and timestamp ({@code collEpoch},
 * {@code collTimestamp}) and optionally its collection version ({@code expectedCollectionVersion}). A commit refuses
 * without writing when the catalog disagrees (docs/sharding-protocol.md, "Version rules").
 *
 * @param epoch             the collection epoch the caller saw
 * @param timestamp         that epoch's timestamp
 * @param collectionVersion the collection version the caller saw, or null to skip that check
 */
public record CommitExpectation(ObjectId epoch, BsonTimestamp timestamp, @Nullable ChunkVersion collectionVersion) {
    public CommitExpectation {
        Objects.requireNonNull(epoch, "epoch");
        Objects.requireNonNull(timestamp, "timestamp");
    }
}
