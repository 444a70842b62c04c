package dev.shardstore.console.meters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shardstore.console.ClusterClient;
import dev.shardstore.console.ConsoleProperties;
import dev.shardstore.console.StandIn;
import dev.shardstore.console.TestClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MeterSampler} against a stand-in router and two stand-in shards' {@code /actuator/prometheus} ({@link StandIn}),
 * with a clock the test moves: rates come from the counters' differences over the clock's interval, p99 from
 * the buckets' differences; a shard that does not answer is a gap; a restarted shard counts from its new zero; the ring
 * buffer keeps 15 minutes of samples.
 */
class MeterSamplerTest {
    private final TestClock clock = new TestClock();
    /** Each stand-in shard's exposition; absent: it answers 503, as a shard going down. */
    private final Map<String, String> expositions = new ConcurrentHashMap<>();
    private StandIn cluster;
    private MeterSampler sampler;

    @BeforeEach
    void start() {
        cluster = new StandIn(request -> {
            if (request.command() != null) {
                String url = cluster.url();
                return StandIn.Answer.json("{\"shards\": [{\"_id\": \"shard1\", \"host\": \"" + url + "/shard1\"}, {\"_id\": \"shard2\","
                        + " \"host\": \"" + url + "/shard2\"}], \"ok\": 1}");
            }
            String shard = request.path().substring(1, request.path().indexOf('/', 1));
            String exposition = expositions.get(shard);
            return exposition == null ? new StandIn.Answer(503, "text/plain", "down") : new StandIn.Answer(200, "text/plain", exposition);
        });
        String url = cluster.url();
        ConsoleProperties properties = ConsoleProperties.of(List.of(url), url, url, url, url);
        sampler = new MeterSampler(new ClusterClient(properties, clock), properties, clock);
    }

    @AfterEach
    void stop() {
        sampler.close();
        cluster.close();
    }

    /**
     * An exposition as the shard's Prometheus endpoint writes it: the timer's buckets at 1 ms, 10 ms, 100 ms and +Inf
     * for two tag sets (find and insert), with {@code fast}, {@code medium} and {@code slow} commands of find each, and
     * one fast insert; started at {@code start}.
     */
    private static String exposition(double start, long fast, long medium, long slow) {
        StringBuilder out = new StringBuilder("# HELP process_start_time_seconds Start time of the process\n"
                + "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds " + start + "\n"
                + "# TYPE shardstore_shard_command_seconds histogram\n");
        String[] bounds = {"0.001", "0.01", "0.1", "+Inf"};
        long[] find = {fast, fast + medium, fast + medium + slow, fast + medium + slow};
        for (int i = 0; i < bounds.length; i++) {
            out.append("shardstore_shard_command_seconds_bucket{command=\"find\",outcome=\"ok\",le=\"").append(bounds[i]).append("\"} ")
                    .append(find[i]).append('\n');
            out.append("shardstore_shard_command_seconds_bucket{command=\"insert\",outcome=\"ok\",le=\"").append(bounds[i]).append("\"} 1\n");
        }
        return out.append("shardstore_shard_command_seconds_count{command=\"find\",outcome=\"ok\"} ").append(find[3]).append('\n').toString();
    }

    private ShardMeters shard(String name) {
        return sampler.history().stream().filter(m -> m.shard().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void ratesAndP99ComeFromTheDifferencesOverTheClocksInterval() {
        expositions.put("shard1", exposition(1000, 10, 0, 0));
        expositions.put("shard2", exposition(2000, 0, 0, 0));
        sampler.sample();
        assertThat(shard("shard1").points()).as("one reading rates nothing yet").isEmpty();

        // 5 s later: 100 more commands on shard1, 98 of them fast, 1 medium, 1 slow
        clock.advance(Duration.ofSeconds(5));
        expositions.put("shard1", exposition(1000, 108, 1, 1));
        sampler.sample();
        MeterPoint point = shard("shard1").points().getLast();
        assertThat(point.time()).isEqualTo(clock.instant());
        assertThat(point.opsPerSecond()).isEqualTo(20.0);
        // rank 99 of 100 lies in the (1 ms, 10 ms] bucket, which holds the 99th: its upper bound
        assertThat(point.p99Millis()).isCloseTo(10.0, within(1e-9));
        assertThat(shard("shard2").points().getLast().opsPerSecond()).isZero();
        assertThat(shard("shard2").points().getLast().p99Millis()).as("no command, no latency").isNull();
        assertThat(sampler.history()).extracting(ShardMeters::shard, ShardMeters::colour)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("shard1", 0), org.assertj.core.groups.Tuple.tuple("shard2", 1));
    }

    @Test
    void aShardThatDoesNotAnswerIsAGapAndARestartedOneCountsFromItsNewZero() {
        expositions.put("shard1", exposition(1000, 500, 0, 0));
        sampler.sample();
        expositions.remove("shard1");
        clock.advance(Duration.ofSeconds(5));
        sampler.sample();
        assertThat(shard("shard1").points().getLast().opsPerSecond()).as("a gap").isNull();

        // back, restarted (another start time, counters from zero): 30 commands since, over the 10 s since the last reading
        clock.advance(Duration.ofSeconds(5));
        expositions.put("shard1", exposition(1009, 29, 0, 0));
        sampler.sample();
        assertThat(shard("shard1").points().getLast().opsPerSecond()).isEqualTo(3.0);
        assertThat(shard("shard1").latestP99()).isCloseTo(0.99, within(1e-9));
    }

    @Test
    void theRingBufferKeepsFifteenMinutesOfSamples() {
        assertThat(sampler.capacity()).isEqualTo(180);
        for (int i = 0; i < 200; i++) {
            expositions.put("shard1", exposition(1000, i, 0, 0));
            sampler.sample();
            clock.advance(Duration.ofSeconds(5));
        }
        List<MeterPoint> points = shard("shard1").points();
        assertThat(points).hasSize(180);
        assertThat(Duration.between(points.getFirst().time(), points.getLast().time())).isEqualTo(Duration.ofSeconds(5 * 179));
        assertThat(points).allSatisfy(p -> assertThat(p.opsPerSecond()).isEqualTo(0.2));
        assertThat(shard("shard1").peakOps()).isEqualTo(0.2);
    }
}
