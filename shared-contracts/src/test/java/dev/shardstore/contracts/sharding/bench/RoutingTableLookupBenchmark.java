package dev.shardstore.contracts.sharding.bench;

import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.sharding.ShardingFixtures;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
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
 * JMH benchmark of routing one key: {@link RoutingTable#findChunk} for an encoded shard key drawn at random from
 * a pool of 65,536 (so the lookups touch the whole table, not a cached path), and {@link RoutingTable#chunkFor}
 * for a whole document (shard key extraction and KeyString encoding included), in tables of 1,000, 100,000 and
 * 1,000,000 chunks of a ranged int64 key {@code {x: 1}} and a compound string key {@code {country: 1, name: 1}}
 * (chunks of equal width; keys uniform over the chunks).
 *
 * <p>Run it from the repository root (the JMH annotation processor runs during test-compile):
 * <pre>{@code
 * . bin/java-env.sh
 * ./mvnw -B -q -o -pl shared-contracts test-compile dependency:build-classpath \
 *     -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
 * java -cp shared-contracts/target/test-classes:shared-contracts/target/classes:$(cat shared-contracts/target/test-classpath.txt) \
 *     dev.shardstore.contracts.sharding.bench.RoutingTableLookupBenchmark -f 1 -wi 2 -i 3
 * }</pre>
 * Arguments are JMH's command-line options ({@code -p chunks=1000000} for one size). The 1,000,000-chunk tables
 * take about 1 GB of heap, hence {@code -Xmx3g} for the forks.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Fork(value = 2, jvmArgsAppend = "-Xmx3g")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public class RoutingTableLookupBenchmark {
    private static final int POOL = 1 << 16;
    private static final long STEP = 1_000;

    @Param({"1000", "100000", "1000000"})
    public int chunks;

    @Param({"int64", "countryName"})
    public String key;

    private RoutingTable table;
    private final byte[][] keys = new byte[POOL][];
    private final BsonDocument[] documents = new BsonDocument[POOL];
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        boolean int64 = key.equals("int64");
        ShardedCollection collection = ShardingFixtures.collection(int64 ? ShardingFixtures.X_KEY : ShardingFixtures.COUNTRY_NAME_KEY);
        List<Chunk> list = int64 ? ShardingFixtures.int64Chunks(chunks, STEP, 4) : ShardingFixtures.compoundChunks(chunks, 4);
        table = RoutingTable.of(collection, list);
        SplittableRandom random = new SplittableRandom(4);
        for (int i = 0; i < POOL; i++) {
            int chunk = random.nextInt(chunks);
            BsonDocument doc = int64
                    ? new BsonDocument("x", new BsonInt64(chunk * STEP + random.nextLong(STEP)))
                    : withSuffix(ShardingFixtures.compoundBound(chunk, chunks), random.nextInt(1000));
            doc.append("pop", new BsonInt32(random.nextInt(1_000_000)));
            documents[i] = doc;
            keys[i] = collection.key().keyOf(doc);
        }
    }

    /** A key inside chunk {@code i}: its lower bound's name with a suffix (chunk 0 starts at MinKey: any name). */
    private static BsonDocument withSuffix(BsonDocument bound, int suffix) {
        return new BsonDocument("country", bound.get("country"))
                .append("name", new BsonString(bound.getString("name").getValue() + "-" + suffix));
    }

    @Benchmark
    public Chunk findChunk() {
        return table.findChunk(keys[next++ & (POOL - 1)]);
    }

    @Benchmark
    public Chunk chunkForDocument() {
        return table.chunkFor(documents[next++ & (POOL - 1)]);
    }

    public static void main(String[] args) throws Exception {
        new Runner(new OptionsBuilder()
                        .parent(new CommandLineOptions(args))
                        .include(RoutingTableLookupBenchmark.class.getName())
                        .build())
                .run();
    }
}
