package dev.shardstore.contracts.bson.bench;

import dev.shardstore.contracts.bson.ExtendedJson;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * JMH benchmark of a REST reply's JSON: a {@code find} reply of 50 YCSB-like documents ({@code _id} and two fields of
 * 100 characters, about 14 KB of JSON) written by {@link ExtendedJson#toJson}. With the BSON library's own relaxed
 * writer this took 227 µs, a quarter of the router's CPU for a scatter-gather find through REST; with Jackson's generator
 * ({@code RelaxedJsonWriter}) 32 µs (docs/benchmarks.md, round 7).
 *
 * <p>Run it from the repository root like {@code KeyStringBenchmark} (see its javadoc), with this class's name.
 * The class name does not end in Test, so surefire skips it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public class ExtendedJsonBenchmark {
    private final BsonDocument reply = findReply(50);

    private static BsonDocument findReply(int documents) {
        List<BsonValue> batch = new ArrayList<>();
        for (int i = 0; i < documents; i++) {
            batch.add(new BsonDocument("_id", new BsonString("user" + (6_284_781_860_667_377_211L + i)))
                    .append("field0", new BsonString("x".repeat(40) + "\"quoted\" \\ é " + "y".repeat(45)))
                    .append("field1", new BsonString("z".repeat(100))));
        }
        return new BsonDocument("cursor", new BsonDocument("firstBatch", new BsonArray(batch)).append("id", new BsonInt64(0))
                .append("ns", new BsonString("ycsb.usertable"))).append("ok", new BsonDouble(1));
    }

    @Benchmark
    public String extendedJson() {
        return ExtendedJson.toJson(reply);
    }

    public static void main(String[] args) throws Exception {
        new Runner(new OptionsBuilder().parent(new CommandLineOptions(args)).include(ExtendedJsonBenchmark.class.getSimpleName()).build()).run();
    }
}
