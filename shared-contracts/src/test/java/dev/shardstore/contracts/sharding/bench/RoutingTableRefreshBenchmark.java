package dev.shardstore.contracts.sharding.bench;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.sharding.ShardingFixtures;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * JMH benchmark of refreshing a cached routing table after one chunk split in a collection of 100,000 chunks
 * ({@code {x: 1}}, 4 shards). Both sides start from the {@code _configsvrGetRoutingTable} reply as BSON bytes
 * ({@code {collection, chunks: [...], full}}, docs/sharding-protocol.md) and end with the new table:
 * <ul>
 *   <li>{@code incremental}: the reply holds the 2 chunks newer than the cached collection version; decode it
 *       ({@code BsonBytes.decodeShallow}, so each chunk is a raw document as a peer's reply delivers it),
 *       {@code Chunk.fromBson} each, {@code cached.withChanges(chunks)};</li>
 *   <li>{@code full}: the reply holds all 100,001 chunks; decode, {@code Chunk.fromBson} each,
 *       {@code RoutingTable.of(collection, chunks)}.</li>
 * </ul>
 * The setup checks that both give the same chunks and versions.
 *
 * <p>Run it as {@link RoutingTableLookupBenchmark}, with this class's name.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
@Fork(value = 2, jvmArgsAppend = "-Xmx3g")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public class RoutingTableRefreshBenchmark {
    private static final long STEP = 1_000;

    @Param("100000")
    public int chunks;

    private RoutingTable cached;
    private byte[] incrementalReply;
    private byte[] fullReply;

    @Setup(Level.Trial)
    public void setUp() {
        ShardedCollection collection = ShardingFixtures.collection(ShardingFixtures.X_KEY);
        List<Chunk> catalog = new ArrayList<>(ShardingFixtures.int64Chunks(chunks, STEP, 4));
        cached = RoutingTable.of(collection, catalog);

        // split the middle chunk at its midpoint with the protocol's versions
        int i = chunks / 2;
        Chunk parent = catalog.get(i);
        ChunkVersion cv = cached.collectionVersion();
        ChunkVersion base = cached.shardVersion(parent.shard()).equals(cv) ? ShardingFixtures.version(cv.major() + 1, 0) : cv;
        long middle = i * STEP + STEP / 2;
        List<Chunk> pieces = List.of(
                ShardingFixtures.chunk(parent.range().min(), ShardingFixtures.x(middle), parent.shard(),
                        ShardingFixtures.version(base.major(), base.minor() + 1)),
                ShardingFixtures.chunk(ShardingFixtures.x(middle), parent.range().max(), parent.shard(),
                        ShardingFixtures.version(base.major(), base.minor() + 2)));
        catalog.remove(i);
        catalog.addAll(i, pieces);

        incrementalReply = reply(collection, pieces, false);
        fullReply = reply(collection, catalog, true);
        RoutingTable incremental = incremental();
        RoutingTable full = full();
        if (!incremental.chunks().equals(full.chunks()) || !incremental.collectionVersion().equals(full.collectionVersion())
                || !incremental.shardVersion(parent.shard()).equals(full.shardVersion(parent.shard()))
                || full.size() != chunks + 1) {
            throw new IllegalStateException("incremental and full refresh disagree");
        }
    }

    private static byte[] reply(ShardedCollection collection, List<Chunk> chunks, boolean full) {
        BsonArray array = new BsonArray(chunks.size());
        chunks.forEach(c -> array.add(c.toBson()));
        return BsonBytes.encode(new BsonDocument("collection", collection.toBson())
                .append("chunks", array)
                .append("full", BsonBoolean.valueOf(full)));
    }

    private static List<Chunk> chunksOf(BsonDocument reply) {
        BsonArray array = reply.getArray("chunks");
        List<Chunk> chunks = new ArrayList<>(array.size());
        for (BsonValue chunk : array) {
            chunks.add(Chunk.fromBson(chunk.asDocument()));
        }
        return chunks;
    }

    @Benchmark
    public RoutingTable incremental() {
        return cached.withChanges(chunksOf(BsonBytes.decodeShallow(incrementalReply)));
    }

    @Benchmark
    public RoutingTable full() {
        BsonDocument reply = BsonBytes.decodeShallow(fullReply);
        return RoutingTable.of(ShardedCollection.fromBson(reply.getDocument("collection")), chunksOf(reply));
    }

    public static void main(String[] args) throws Exception {
        new Runner(new OptionsBuilder()
                        .parent(new CommandLineOptions(args))
                        .include(RoutingTableRefreshBenchmark.class.getName())
                        .build())
                .run();
    }
}
