package dev.shardstore.contracts.sharding;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.List;
import java.util.Objects;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * One chunk of a sharded collection as {@code config.chunks} stores it: a range, the shard that owns it, its version
 * ({@code lastmod}) and where it was placed before. BSON shape (MongoDB's): {@code {min, max, shard, lastmod: {major,
 * minor, epoch, timestamp}, jumbo, history: [{validAfter, shard}]}}, {@code history} left out when unknown.
 *
 * @param range   the shard key range {@code [min, max)}
 * @param shard   the owning shard's id
 * @param lastmod the chunk version (mongo/src/mongo/db/s/README.md "Shard versioning")
 * @param jumbo   whether the balancer gave up splitting it
 * @param history its placements, newest first, each older than the one before (copied); its first entry names
 *                {@code shard}; empty when unknown (a chunk built without it), which {@link #placementAt} takes as always
 *                on {@code shard}, as MongoDB does a chunk without history
 */
public record Chunk(ChunkRange range, String shard, ChunkVersion lastmod, boolean jumbo, List<ChunkHistory> history) {
    public Chunk {
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(lastmod, "lastmod");
        if (Objects.requireNonNull(shard, "shard").isEmpty()) {
            throw new IllegalArgumentException("shard must not be empty");
        }
        history = List.copyOf(history);
        if (!history.isEmpty() && !history.getFirst().shard().equals(shard)) {
            throw new IllegalArgumentException("the history of chunk " + range + " must start with its shard " + shard
                    + ", not " + history.getFirst().shard());
        }
        for (int i = 1; i < history.size(); i++) {
            if (Long.compareUnsigned(history.get(i).validAfter().getValue(), history.get(i - 1).validAfter().getValue()) >= 0) {
                throw new IllegalArgumentException("the history of chunk " + range + " must be newest first");
            }
        }
    }

    public Chunk(ChunkRange range, String shard, ChunkVersion lastmod, boolean jumbo) {
        this(range, shard, lastmod, jumbo, List.of());
    }

    public Chunk(ChunkRange range, String shard, ChunkVersion lastmod) {
        this(range, shard, lastmod, false);
    }

    /**
     * This chunk as it was placed at cluster time {@code at} (MongoDB's {@code ChunkInfo::getShardIdAt}): on the shard
     * of the newest history entry valid at or before it, with the history from that entry on; {@code this} when that
     * is the newest entry, or when the history is unknown. The range, version and jumbo flag stay today's.
     *
     * @throws CommandException StaleChunkHistory (183) when {@code at} is older than every entry: the history kept
     *                          ({@code minSnapshotHistoryWindowInSeconds}) does not reach back to it
     */
    public Chunk placementAt(BsonTimestamp at) {
        for (int i = 0; i < history.size(); i++) {
            if (Long.compareUnsigned(history.get(i).validAfter().getValue(), at.getValue()) <= 0) {
                return i == 0 ? this : new Chunk(range, history.get(i).shard(), lastmod, jumbo, history.subList(i, history.size()));
            }
        }
        if (history.isEmpty()) {
            return this;
        }
        throw new CommandException(ErrorCode.StaleChunkHistory, "cannot find the shard that chunk " + range + " belonged to at"
                + " cluster time " + at + ": its placement history starts at " + history.getLast().validAfter());
    }

    /** When this chunk last changed shards (or was created, split off or merged), as far as its history says; null without one. */
    public @Nullable BsonTimestamp placedAt() {
        return history.isEmpty() ? null : history.getFirst().validAfter();
    }

    public BsonDocument toBson() {
        BsonDocument doc = range.toBson()
                .append("shard", new BsonString(shard))
                .append("lastmod", lastmod.toBson())
                .append("jumbo", BsonBoolean.valueOf(jumbo));
        if (!history.isEmpty()) {
            doc.append("history", ChunkHistory.toBson(history));
        }
        return doc;
    }

    /**
     * Reads {@link #toBson()}'s shape.
     *
     * @throws IllegalArgumentException naming the malformed document
     */
    public static Chunk fromBson(BsonDocument doc) {
        try {
            List<ChunkHistory> history = doc.isArray("history")
                    ? ChunkHistory.listFromBson(doc.getArray("history")) : List.of();
            return new Chunk(new ChunkRange(doc.getDocument("min"), doc.getDocument("max")), doc.getString("shard").getValue(),
                    ChunkVersion.fromBson(doc.getDocument("lastmod")), doc.getBoolean("jumbo", BsonBoolean.FALSE).getValue(), history);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed chunk " + doc.toJson() + ": " + e.getMessage(), e);
        }
    }
}
