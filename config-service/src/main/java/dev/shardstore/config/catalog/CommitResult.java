package dev.shardstore.config.catalog;

import dev.shardstore.contracts.version.ChunkVersion;
import java.util.Objects;
import org.bson.BsonDocument;

/**
 * The versions after a chunk commit. BSON shape: {@code {shardVersion: ChunkVersion, collectionVersion: ChunkVersion}}.
 *
 * @param shardVersion      the new version of the shard the commit concerned (for a migration: the donor)
 * @param collectionVersion the new collection version
 */
public record CommitResult(ChunkVersion shardVersion, ChunkVersion collectionVersion) {
    public CommitResult {
        Objects.requireNonNull(shardVersion, "shardVersion");
        Objects.requireNonNull(collectionVersion, "collectionVersion");
    }

    public BsonDocument toBson() {
        return new BsonDocument("shardVersion", shardVersion.toBson()).append("collectionVersion", collectionVersion.toBson());
    }
}
