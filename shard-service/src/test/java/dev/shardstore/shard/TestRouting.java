package dev.shardstore.shard;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;

/** Builders of routing tables for the shard's sharding tests (served by {@link ConfigServerStub}). */
public final class TestRouting {
    private TestRouting() {
    }

    /** A new instance (epoch) of sharded collection {@code ns} with shard key {@code keyJson}. */
    public static ShardedCollection collection(String ns, String keyJson) {
        return new ShardedCollection(ns, UUID.randomUUID(), new ObjectId(), new BsonTimestamp((int) (System.currentTimeMillis() / 1000), 1),
                ShardKeyPattern.of(ExtendedJson.parse(keyJson)), false, false);
    }

    /** Version {@code major|minor} of {@code collection}'s epoch. */
    public static ChunkVersion version(ShardedCollection collection, int major, int minor) {
        return new ChunkVersion(major, minor, collection.epoch(), collection.timestamp());
    }

    /** A chunk {@code [minJson, maxJson)} on {@code shard} at {@code major|minor}. */
    public static Chunk chunk(ShardedCollection collection, String minJson, String maxJson, String shard, int major, int minor) {
        return new Chunk(new ChunkRange(ExtendedJson.parse(minJson), ExtendedJson.parse(maxJson)), shard, version(collection, major, minor));
    }

    /** {@code json} with {@code shardVersion: version}. */
    public static BsonDocument versioned(String json, ChunkVersion version) {
        return ExtendedJson.parse(json).append(InternalApi.SHARD_VERSION_FIELD, version.toBson());
    }
}
