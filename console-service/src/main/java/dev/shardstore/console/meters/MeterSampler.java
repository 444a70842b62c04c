package dev.shardstore.console.meters;

import dev.shardstore.console.ClusterClient;
import dev.shardstore.console.ClusterException;
import dev.shardstore.console.ConsoleProperties;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import jakarta.annotation.PreDestroy;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Samples every shard's command meters every {@code shardstore.console.sample-interval} (5 s) and keeps
 * {@link #HISTORY} of them per shard, for the operations page's throughput and p99 charts: the shards come from the
 * router's {@code listShards}, each one's histogram from its {@code /actuator/prometheus} ({@link CommandHistogram});
 * the readings of one sample are taken at once, on virtual threads, and stamped with the injected clock's time. A shard
 * that does not answer gets a gap; one no longer listed is forgotten. The console keeps no other history, and none
 * survives its restart. Thread-safe.
 */
@Component
public class MeterSampler {
    /** How far back the charts go. */
    public static final Duration HISTORY = Duration.ofMinutes(15);
    private static final Logger log = LoggerFactory.getLogger(MeterSampler.class);
    /** The console's palette size (ClusterViews' colours: a shard's position in {@code listShards} modulo 8). */
    private static final int PALETTE = 8;

    private final ClusterClient client;
    private final Clock clock;
    private final Duration interval;
    private final int capacity;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    /** Per shard in {@code listShards} order: its palette index and its series; replaced whole by each sample. */
    private volatile Map<String, Sampled> shards = Map.of();
    private final Map<String, MeterSeries> series = new ConcurrentHashMap<>();

    private record Sampled(int colour, MeterSeries series) {}

    public MeterSampler(ClusterClient client, ConsoleProperties properties, Clock clock) {
        this.client = client;
        this.clock = clock;
        this.interval = properties.sampleInterval();
        this.capacity = (int) Math.max(1, HISTORY.toMillis() / interval.toMillis());
    }

    /** The time between two samples. */
    public Duration interval() {
        return interval;
    }

    /** How many points a shard's series keeps: {@link #HISTORY} over the interval (180 at 5 s). */
    public int capacity() {
        return capacity;
    }

    /**
     * Takes one sample: lists the shards and reads each one's histogram. A refused or unanswered {@code listShards}
     * skips the sample (nothing is known of the shards then), saying so in the log at debug level.
     */
    @Scheduled(fixedDelayString = "${shardstore.console.sample-interval:5s}")
    public void sample() {
        Instant now = clock.instant();
        List<BsonDocument> listed;
        try {
            listed = client.command("admin", new BsonDocument("listShards", new BsonInt32(1))).getArray("shards", new BsonArray())
                    .stream().map(BsonValue::asDocument).toList();
        } catch (ClusterException e) {
            log.debug("meters not sampled: {}", e.getMessage());
            return;
        }
        List<Future<@Nullable CommandHistogram>> readings = new ArrayList<>();
        for (BsonDocument shard : listed) {
            String host = shard.getString("host").getValue();
            readings.add(executor.submit(() -> read(host)));
        }
        Map<String, Sampled> next = new LinkedHashMap<>();
        for (int i = 0; i < listed.size(); i++) {
            String name = listed.get(i).getString("_id").getValue();
            MeterSeries own = series.computeIfAbsent(name, k -> new MeterSeries(capacity));
            own.add(now, join(readings.get(i)));
            next.put(name, new Sampled(i % PALETTE, own));
        }
        series.keySet().retainAll(next.keySet());
        shards = java.util.Collections.unmodifiableMap(next);
    }

    private @Nullable CommandHistogram read(String host) {
        try {
            return CommandHistogram.parse(client.actuatorText(host, "prometheus"));
        } catch (ClusterException | IllegalArgumentException e) {
            return null;
        }
    }

    private static <T> @Nullable T join(Future<@Nullable T> future) {
        try {
            return future.get();
        } catch (java.util.concurrent.ExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Each shard's points, in {@code listShards} order of the last sample. */
    public List<ShardMeters> history() {
        List<ShardMeters> out = new ArrayList<>();
        shards.forEach((name, sampled) -> out.add(new ShardMeters(name, sampled.colour(), sampled.series().points())));
        return out;
    }

    /** Ends the virtual threads' executor with the application. */
    @PreDestroy
    void close() {
        executor.close();
    }
}
