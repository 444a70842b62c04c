package dev.shardstore.config.catalog;

import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkHistory;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.version.ChunkVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonTimestamp;
import org.bson.UuidRepresentation;
import org.bson.types.ObjectId;

/**
 * A row of {@code config.chunks}: the contract's {@link Chunk}, with its placement history (newest first), plus its id
 * and its collection's uuid. BSON shape: {@code {_id: ObjectId, uuid: UUID, min, max, shard, lastmod: {major, minor,
 * epoch, timestamp}, jumbo, history: [{validAfter, shard}]}}, readable by {@link Chunk#fromBson}.
 *
 * @param id             the chunk's {@code _id}
 * @param collectionUuid the collection instance the chunk belongs to
 * @param chunk          range, shard, version, jumbo flag and a history that is not empty
 */
public record CatalogChunk(ObjectId id, UUID collectionUuid, Chunk chunk) {
    public CatalogChunk {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(collectionUuid, "collectionUuid");
        if (Objects.requireNonNull(chunk, "chunk").history().isEmpty()) {
            throw new IllegalArgumentException("chunk " + chunk.range() + " of config.chunks must have a placement history");
        }
    }

    /** A new chunk (new id) placed on {@code shard} at {@code now}. */
    public static CatalogChunk placed(UUID collectionUuid, ChunkRange range, String shard, ChunkVersion version, BsonTimestamp now) {
        return new CatalogChunk(new ObjectId(), collectionUuid, new Chunk(range, shard, version, false, List.of(new ChunkHistory(now, shard))));
    }

    public ChunkRange range() {
        return chunk.range();
    }

    public String shard() {
        return chunk.shard();
    }

    public ChunkVersion lastmod() {
        return chunk.lastmod();
    }

    /** The placement history, newest first. */
    public List<ChunkHistory> history() {
        return chunk.history();
    }

    /** This chunk with another range and version, same shard and history: a piece of a split. */
    public CatalogChunk reshaped(ObjectId newId, ChunkRange range, ChunkVersion version) {
        return new CatalogChunk(newId, collectionUuid, new Chunk(range, chunk.shard(), version, chunk.jumbo(), history()));
    }

    /** This chunk with another version, same range and shard (a control chunk, a refined epoch). */
    public CatalogChunk withVersion(ChunkVersion version) {
        return new CatalogChunk(id, collectionUuid, new Chunk(chunk.range(), chunk.shard(), version, chunk.jumbo(), history()));
    }

    /** This chunk with another range, same version (a refined shard key's extended bounds). */
    public CatalogChunk withRange(ChunkRange range) {
        return new CatalogChunk(id, collectionUuid, new Chunk(range, chunk.shard(), chunk.lastmod(), chunk.jumbo(), history()));
    }

    /**
     * This chunk moved to {@code shard} at {@code now} with {@code version}: the move is prepended to the history, and
     * the entries only reads older than {@code window} could need are dropped (MongoDB trims the history on each
     * migration commit, mongo/src/mongo/db/s/README.md "The historical routing table"). An entry is needed while the
     * next newer one is valid after {@code now - window}, since it holds the placement up to that one; so the oldest
     * entries go while the one after them is older than the window, and the newest always stays.
     */
    public CatalogChunk movedTo(String shard, ChunkVersion version, BsonTimestamp now, Duration window) {
        List<ChunkHistory> moved = new ArrayList<>(history().size() + 1);
        moved.add(new ChunkHistory(now, shard));
        moved.addAll(history());
        long oldestRead = Integer.toUnsignedLong(now.getTime()) - window.toSeconds();
        while (moved.size() > 1 && Integer.toUnsignedLong(moved.get(moved.size() - 2).validAfter().getTime()) < oldestRead) {
            moved.removeLast();
        }
        return new CatalogChunk(id, collectionUuid, new Chunk(chunk.range(), shard, version, chunk.jumbo(), moved));
    }

    /** The row's document: the chunk's BSON, history included, with {@code _id} and {@code uuid} first. */
    public BsonDocument toBson() {
        BsonDocument doc = new BsonDocument("_id", new BsonObjectId(id))
                .append("uuid", new BsonBinary(collectionUuid, UuidRepresentation.STANDARD));
        doc.putAll(chunk.toBson());
        return doc;
    }
}
