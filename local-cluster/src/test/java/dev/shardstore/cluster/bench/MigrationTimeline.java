package dev.shardstore.cluster.bench;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The chunk migrations of a cluster as its donors logged them in {@code config.changelog}: each from its
 * {@code moveChunk.start} to its {@code moveChunk.commit} or {@code moveChunk.error} (a donor runs one migration at a time,
 * so its entries pair up in time order), and how many ran at once. Used by end-to-end tests and benchmarks.
 */
public final class MigrationTimeline {
    private MigrationTimeline() {
    }

    /** One migration: its donor, recipient, start and end. */
    public record Migration(String from, String to, Instant start, Instant end) {}

    /** Every migration in {@code config.changelog}, read through {@code router}, in start order. */
    public static List<Migration> read(RouterClient router) {
        String find = "{\"find\": \"changelog\", \"batchSize\": 1000000}"; // every entry in one batch: a balancing run makes hundreds
        List<BsonDocument> entries = new ArrayList<>(RouterClient.requireOk(find, router.run("config", ExtendedJson.parse(find)))
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList());
        entries.sort(Comparator.comparing(e -> e.getDateTime("time").getValue()));
        Map<String, BsonDocument> open = new HashMap<>();
        List<Migration> migrations = new ArrayList<>();
        for (BsonDocument entry : entries) {
            String what = entry.getString("what").getValue();
            String donor = entry.getString("server").getValue();
            if (what.equals("moveChunk.start")) {
                open.put(donor, entry);
            } else if ((what.equals("moveChunk.commit") || what.equals("moveChunk.error")) && open.containsKey(donor)) {
                BsonDocument start = open.remove(donor);
                migrations.add(new Migration(donor, start.getDocument("details").getString("to", new BsonString("?")).getValue(),
                        Instant.ofEpochMilli(start.getDateTime("time").getValue()), Instant.ofEpochMilli(entry.getDateTime("time").getValue())));
            }
        }
        return migrations;
    }

    /**
     * What the donors reported ({@code moveChunk.from}) for the migrations that started after {@code since}: how many,
     * the bytes of documents they cloned, and each step's mean length in milliseconds ({@code steps}: start, clone,
     * criticalSection, commit, cleanup, total; MigrationSourceManager's phases), in the donors' order.
     */
    public record DonorReport(int migrations, long bytesCloned, Map<String, Double> meanStepMillis) {}

    /** The {@link DonorReport} of the migrations that started after {@code since}. */
    public static DonorReport donors(RouterClient router, Instant since) {
        String find = "{\"find\": \"changelog\", \"filter\": {\"what\": \"moveChunk.from\"}, \"batchSize\": 1000000}";
        List<BsonDocument> details = RouterClient.requireOk(find, router.run("config", ExtendedJson.parse(find))).getDocument("cursor")
                .getArray("firstBatch").stream().map(BsonValue::asDocument)
                .filter(e -> Instant.ofEpochMilli(e.getDateTime("time").getValue()).isAfter(since))
                .map(e -> e.getDocument("details")).toList();
        long bytes = details.stream().mapToLong(d -> d.getNumber("bytesCloned", new BsonInt64(0)).longValue()).sum();
        Map<String, Double> steps = new LinkedHashMap<>();
        for (BsonDocument d : details) {
            d.getDocument("steps", new BsonDocument()).forEach((step, millis) -> steps.merge(step, millis.asNumber().doubleValue() / details.size(), Double::sum));
        }
        return new DonorReport(details.size(), bytes, steps);
    }

    /**
     * The mean time in milliseconds from one migration's end to the next one's start (the balancer's part) of
     * {@code migrations} in start order, as {@link #read} gives them; 0 for fewer than two.
     */
    public static double meanGapMillis(List<Migration> migrations) {
        double sum = 0;
        for (int i = 1; i < migrations.size(); i++) {
            sum += Duration.between(migrations.get(i - 1).end(), migrations.get(i).start()).toMillis();
        }
        return migrations.size() < 2 ? 0 : sum / (migrations.size() - 1);
    }

    /** The largest number of {@code migrations} in progress at one instant. */
    public static int maxOverlap(List<Migration> migrations) {
        int max = 0;
        for (Migration m : migrations) {
            int running = (int) migrations.stream().filter(o -> !o.start().isAfter(m.start()) && o.end().isAfter(m.start())).count();
            max = Math.max(max, running);
        }
        return max;
    }
}
