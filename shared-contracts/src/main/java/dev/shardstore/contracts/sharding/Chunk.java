package dev.shardstore.contracts.sharding;

import dev.shardstore.contracts.version.ChunkVersion;
import java.util.Objects;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * One chunk of a sharded collection as {@code config.chunks} stores it: a range, the shard that owns it and
 * its version ({@code lastmod}). BSON shape (MongoDB's): {@code {min, max, shard, lastmod: {major, minor,
 * epoch, timestamp}, jumbo}}.
 *
 * @param range   the shard key range {@code [min, max)}
 * @param shard   the owning shard's id
 * @param lastmod the chunk version (mongo/src/mongo/db/s/README.md "Shard versioning")
 * @param jumbo   whether the balancer gave up splitting it
 */
public record Chunk(ChunkRange range, String shard, ChunkVersion lastmod, boolean jumbo) {
    public Chunk {
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(lastmod, "lastmod");
        if (Objects.requireNonNull(shard, "shard").isEmpty()) {
            throw new IllegalArgumentException("shard must not be empty");
        }
    }

    public Chunk(ChunkRange range, String shard, ChunkVersion lastmod) {
        this(range, shard, lastmod, false);
    }

    public BsonDocument toBson() {
        return range.toBson()
                .append("shard", new BsonString(shard))
                .append("lastmod", lastmod.toBson())
                .append("jumbo", BsonBoolean.valueOf(jumbo));
    }

    /**
     * Reads {@link #toBson()}'s shape.
     *
     * @throws IllegalArgumentException naming the malformed document
     */
    public static Chunk fromBson(BsonDocument doc) {
        try {
            return new Chunk(new ChunkRange(doc.getDocument("min"), doc.getDocument("max")), doc.getString("shard").getValue(),
                    ChunkVersion.fromBson(doc.getDocument("lastmod")), doc.getBoolean("jumbo", BsonBoolean.FALSE).getValue());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed chunk " + doc.toJson() + ": " + e.getMessage(), e);
        }
    }
}
