package dev.shardstore.cluster.bench;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
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

    /** The bytes of documents the donors cloned in the migrations that started after {@code since} ({@code moveChunk.from}). */
    public static long bytesCloned(RouterClient router, Instant since) {
        String find = "{\"find\": \"changelog\", \"filter\": {\"what\": \"moveChunk.from\"}, \"batchSize\": 1000000}";
        return RouterClient.requireOk(find, router.run("config", ExtendedJson.parse(find))).getDocument("cursor").getArray("firstBatch")
                .stream().map(BsonValue::asDocument)
                .filter(e -> Instant.ofEpochMilli(e.getDateTime("time").getValue()).isAfter(since))
                .mapToLong(e -> e.getDocument("details").getNumber("bytesCloned", new BsonInt64(0)).longValue()).sum();
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
