package dev.shardstore.contracts.sharding;

import dev.shardstore.contracts.version.ChunkVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.ObjectId;

/**
 * Collections and chunk lists for the sharding tests and benchmarks: one fixed epoch, the ranged int64 key
 * {@code {x: 1}} and the compound string key {@code {country: 1, name: 1}}.
 */
public final class ShardingFixtures {
    public static final ObjectId EPOCH = new ObjectId("65f1c0ffee0000000000e001");
    public static final BsonTimestamp TIMESTAMP = new BsonTimestamp(1_700_000_000, 7);
    public static final UUID UUID = java.util.UUID.fromString("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
    public static final BsonDocument X_KEY = new BsonDocument("x", new BsonInt32(1));
    public static final BsonDocument COUNTRY_NAME_KEY = new BsonDocument("country", new BsonInt32(1)).append("name", new BsonInt32(1));

    private ShardingFixtures() {}

    /** {@code db.coll} sharded on {@code key}, of {@link #EPOCH}. */
    public static ShardedCollection collection(BsonDocument key) {
        return new ShardedCollection("db.coll", UUID, EPOCH, TIMESTAMP, new ShardKeyPattern(key), false, false);
    }

    /** {@code major|minor} of {@link #EPOCH}. */
    public static ChunkVersion version(int major, int minor) {
        return new ChunkVersion(major, minor, EPOCH, TIMESTAMP);
    }

    /** {@code {x: NumberLong(value)}}. */
    public static BsonDocument x(long value) {
        return new BsonDocument("x", new BsonInt64(value));
    }

    /** {@code {x: MinKey}}. */
    public static BsonDocument xMin() {
        return new BsonDocument("x", new BsonMinKey());
    }

    /** {@code {x: MaxKey}}. */
    public static BsonDocument xMax() {
        return new BsonDocument("x", new BsonMaxKey());
    }

    public static Chunk chunk(BsonDocument min, BsonDocument max, String shard, ChunkVersion lastmod) {
        return new Chunk(new ChunkRange(min, max), shard, lastmod);
    }

    /**
     * {@code n} chunks of {@code {x: 1}}: {@code [MinKey, step), [step, 2 step), …, [(n-1) step, MaxKey)}, on shards
     * {@code shard0…} round robin, versions {@code 1|0, 1|1, …} in key order (as sharding an empty collection gives).
     */
    public static List<Chunk> int64Chunks(int n, long step, int shards) {
        List<Chunk> chunks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            chunks.add(chunk(i == 0 ? xMin() : x(i * step), i == n - 1 ? xMax() : x((i + 1) * step), "shard" + i % shards,
                    version(1, i)));
        }
        return chunks;
    }

    /**
     * {@code n} chunks of {@code {country: 1, name: 1}} with the lower bound of chunk {@code i > 0} at
     * {@link #compoundBound(int, int)}, shards and versions as {@link #int64Chunks}.
     */
    public static List<Chunk> compoundChunks(int n, int shards) {
        List<Chunk> chunks = new ArrayList<>(n);
        BsonDocument min = new BsonDocument("country", new BsonMinKey()).append("name", new BsonMinKey());
        for (int i = 0; i < n; i++) {
            BsonDocument max = i == n - 1
                    ? new BsonDocument("country", new BsonMaxKey()).append("name", new BsonMaxKey())
                    : compoundBound(i + 1, n);
            chunks.add(chunk(min, max, "shard" + i % shards, version(1, i)));
            min = max;
        }
        return chunks;
    }

    /**
     * The lower bound of chunk {@code i} of {@code n} in {@link #compoundChunks}: {@code {country: <one of 250
     * two-letter codes, non-decreasing in i>, name: "name-<i, 8 digits>"}}, so strictly increasing in {@code i}.
     */
    public static BsonDocument compoundBound(int i, int n) {
        return new BsonDocument("country", new BsonString(country((int) ((long) i * 250 / n))))
                .append("name", new BsonString(String.format("name-%08d", i)));
    }

    /** The {@code k}-th of 250 two-letter country codes in ascending order ("AA", "AB", …). */
    public static String country(int k) {
        return "" + (char) ('A' + k / 26) + (char) ('A' + k % 26);
    }

    /** {@code {field: value}} — for one-field keys other than {@code x}. */
    public static BsonDocument doc(String field, BsonValue value) {
        return new BsonDocument(field, value);
    }
}
