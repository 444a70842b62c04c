package dev.shardstore.contracts.keystring.bench;

import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.contracts.keystring.Ordering;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDouble;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
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
 * JMH benchmark of {@link KeyString#encode} on typical key values: an int64, an integral and a
 * fractional double, a short string, an ObjectId, and a compound {string, string} key.
 *
 * <p>Run it from the repository root (the JMH annotation processor runs during test-compile):
 * <pre>{@code
 * . bin/java-env.sh
 * ./mvnw -B -q -o -pl shared-contracts test-compile dependency:build-classpath \
 *     -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
 * java -cp shared-contracts/target/test-classes:shared-contracts/target/classes:$(cat shared-contracts/target/test-classpath.txt) \
 *     dev.shardstore.contracts.keystring.bench.KeyStringBenchmark
 * }</pre>
 * Arguments are JMH's command-line options, e.g. {@code -f 1 -wi 2 -i 3} for a quicker run or
 * {@code -prof gc} for allocation rates. The class name does not end in Test, so surefire skips it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public class KeyStringBenchmark {
    private final BsonValue int64 = new BsonInt64(1_712_345_678_901L);
    private final BsonValue integralDouble = new BsonDouble(1_048_576.0);
    private final BsonValue fractionalDouble = new BsonDouble(19.99);
    private final BsonValue shortString = new BsonString("user-4711");
    private final BsonValue objectId = new BsonObjectId(new ObjectId("65f1c0ffee0000000000abcd"));
    private final List<BsonValue> compound = List.of(new BsonString("tenant-42"), new BsonString("order-000123"));
    private final Ordering twoAscending = Ordering.allAscending(2);

    @Benchmark
    public byte[] encodeInt64() {
        return KeyString.encode(int64);
    }

    @Benchmark
    public byte[] encodeIntegralDouble() {
        return KeyString.encode(integralDouble);
    }

    @Benchmark
    public byte[] encodeFractionalDouble() {
        return KeyString.encode(fractionalDouble);
    }

    @Benchmark
    public byte[] encodeShortString() {
        return KeyString.encode(shortString);
    }

    @Benchmark
    public byte[] encodeObjectId() {
        return KeyString.encode(objectId);
    }

    @Benchmark
    public byte[] encodeCompoundStringString() {
        return KeyString.encode(compound, twoAscending);
    }

    public static void main(String[] args) throws Exception {
        new Runner(new OptionsBuilder()
                        .parent(new CommandLineOptions(args))
                        .include(KeyStringBenchmark.class.getName())
                        .build())
                .run();
    }
}
