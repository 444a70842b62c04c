package dev.shardstore.config.catalog;

import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonTimestamp;
import org.bson.UuidRepresentation;
import org.bson.types.ObjectId;

/**
 * A row of {@code config.chunks}: the contract's {@link Chunk} plus its id, its collection's uuid and its placement
 * history (newest first). BSON shape: {@code {_id: ObjectId, uuid: UUID, min, max, shard, lastmod: {major, minor,
 * epoch, timestamp}, jumbo, history: [{validAfter, shard}]}}, readable by {@link Chunk#fromBson}.
 *
 * @param id             the chunk's {@code _id}
 * @param collectionUuid the collection instance the chunk belongs to
 * @param chunk          range, shard, version and jumbo flag
 * @param history        placement history, newest first (copied); its first entry names {@code chunk.shard()}
 */
public record CatalogChunk(ObjectId id, UUID collectionUuid, Chunk chunk, List<ChunkHistory> history) {
    public CatalogChunk {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(collectionUuid, "collectionUuid");
        Objects.requireNonNull(chunk, "chunk");
        history = List.copyOf(history);
        if (history.isEmpty() || !history.getFirst().shard().equals(chunk.shard())) {
            throw new IllegalArgumentException("the history of chunk " + chunk.range() + " must start with its shard " + chunk.shard());
        }
    }

    /** A new chunk (new id) placed on {@code shard} at {@code now}. */
    public static CatalogChunk placed(UUID collectionUuid, ChunkRange range, String shard, ChunkVersion version, BsonTimestamp now) {
        return new CatalogChunk(new ObjectId(), collectionUuid, new Chunk(range, shard, version), List.of(new ChunkHistory(now, shard)));
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

    /** This chunk with another range and version, same shard and history: a piece of a split. */
    public CatalogChunk reshaped(ObjectId newId, ChunkRange range, ChunkVersion version) {
        return new CatalogChunk(newId, collectionUuid, new Chunk(range, chunk.shard(), version, chunk.jumbo()), history);
    }

    /** This chunk with another version, same range and shard (a control chunk, a refined epoch). */
    public CatalogChunk withVersion(ChunkVersion version) {
        return new CatalogChunk(id, collectionUuid, new Chunk(chunk.range(), chunk.shard(), version, chunk.jumbo()), history);
    }

    /** This chunk with another range, same version (a refined shard key's extended bounds). */
    public CatalogChunk withRange(ChunkRange range) {
        return new CatalogChunk(id, collectionUuid, new Chunk(range, chunk.shard(), chunk.lastmod(), chunk.jumbo()), history);
    }

    /** This chunk moved to {@code shard} at {@code now} with {@code version}; the move is prepended to the history. */
    public CatalogChunk movedTo(String shard, ChunkVersion version, BsonTimestamp now) {
        List<ChunkHistory> moved = new ArrayList<>(history.size() + 1);
        moved.add(new ChunkHistory(now, shard));
        moved.addAll(history);
        return new CatalogChunk(id, collectionUuid, new Chunk(chunk.range(), shard, version, chunk.jumbo()), moved);
    }

    public BsonDocument toBson() {
        BsonDocument doc = new BsonDocument("_id", new BsonObjectId(id))
                .append("uuid", new BsonBinary(collectionUuid, UuidRepresentation.STANDARD));
        doc.putAll(chunk.toBson());
        return doc.append("history", historyToBson(history));
    }

    static BsonArray historyToBson(List<ChunkHistory> history) {
        return new BsonArray(history.stream().map(ChunkHistory::toBson).toList());
    }
}
