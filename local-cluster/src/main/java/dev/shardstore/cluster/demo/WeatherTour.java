package dev.shardstore.cluster.demo;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.nio.file.Path;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The time-series part of {@code ./cluster demo}: shards {@code geo.weather} as a time-series collection (meta field
 * {@code location}, time field {@code date}, key {@code {location: 1, date: 1}}), inserts the bundled daily weather of
 * Seattle and New York 2012–2015 ({@code data/weather.csv}, vega-datasets; see data/README.md) through the router
 * after putting each city's chunk of the buckets on its own shard, and shows what a time-series collection is for: far fewer stored buckets than measurements, where they went
 * ({@code $shardedDataDistribution} of the buckets namespace), a per-city aggregate computed from unpacked buckets, and
 * a range query on one city that one shard answers.
 */
final class WeatherTour {
    private static final String DB = "geo";
    private static final String COLLECTION = "weather";
    private static final int BATCH = 500;

    private final RouterClient router;
    private final Path weatherFile;
    private final Demo steps;

    /** @param steps the demo this tour is part of: it prints the titles, commands and replies */
    WeatherTour(RouterClient router, Path weatherFile, Demo steps) {
        this.router = router;
        this.weatherFile = weatherFile;
        this.steps = steps;
    }

    void run() {
        steps.step("A sharded time-series collection: daily weather of Seattle and New York, 2012-2015");
        steps.drop(DB, COLLECTION);
        RouterClient.requireOk("shardCollection", steps.run("admin", "{\"shardCollection\": \"" + DB + "." + COLLECTION + "\", "
                + "\"key\": {\"location\": 1, \"date\": 1}, \"timeseries\": {\"timeField\": \"date\", \"metaField\": \"location\", "
                + "\"granularity\": \"hours\"}}"));
        spreadCities();
        int inserted = insertMeasurements();
        steps.print(String.format("   %,d measurements inserted from %s", inserted, weatherFile.getFileName()));

        steps.step("Stored as buckets: one document per city and time span, not one per measurement");
        long buckets = count("system.buckets." + COLLECTION);
        long measurements = count(COLLECTION);
        steps.print(String.format("   %,d measurements in %,d buckets (system.buckets.%s)", measurements, buckets, COLLECTION));
        steps.printDataDistribution(DB + ".system.buckets." + COLLECTION, "buckets");

        steps.step("Per city: the average and the highest maximum temperature (the buckets are unpacked on the shards)");
        printDocuments(steps.run(DB, "{\"aggregate\": \"" + COLLECTION + "\", \"cursor\": {}, \"pipeline\": [{\"$group\": "
                + "{\"_id\": \"$location\", \"days\": {\"$sum\": 1}, \"avgTempMax\": {\"$avg\": \"$temp_max\"}, "
                + "\"highest\": {\"$max\": \"$temp_max\"}}}, {\"$sort\": {\"_id\": 1}}]}"));

        steps.step("One city, one week: the meta value and the time range target the shard that owns them");
        String week = "{\"location\": \"Seattle\", \"date\": {\"$gte\": {\"$date\": \"2014-07-01T00:00:00Z\"}, "
                + "\"$lt\": {\"$date\": \"2014-07-08T00:00:00Z\"}}}";
        BsonDocument explain = RouterClient.requireOk("explain", steps.run(DB, "{\"explain\": {\"find\": \"" + COLLECTION
                + "\", \"filter\": " + week + "}}"));
        BsonArray explained = explain.getDocument("queryPlanner").getDocument("winningPlan").getArray("shards", new BsonArray());
        steps.print("   shards asked: " + explained.stream().map(s -> s.asDocument().getString("shardName").getValue()).toList());
        printDocuments(steps.run(DB, "{\"find\": \"" + COLLECTION + "\", \"filter\": " + week + ", \"sort\": {\"date\": 1}, "
                + "\"projection\": {\"_id\": 0, \"date\": 1, \"temp_max\": 1, \"weather\": 1}}"));
    }

    /**
     * Splits the empty buckets collection between the two cities (the key's meta part) and moves Seattle's half off the
     * database's primary shard, so each city lives on its own shard.
     */
    private void spreadCities() {
        String buckets = DB + ".system.buckets." + COLLECTION;
        String seattle = "{\"meta\": \"Seattle\", \"control.min.date\": {\"$minKey\": 1}}";
        RouterClient.requireOk("split", steps.run("admin", "{\"split\": \"" + buckets + "\", \"middle\": " + seattle + "}"));
        String primary = Demo.firstBatch(RouterClient.requireOk("find", router.run("config", ExtendedJson.parse(
                "{\"find\": \"databases\", \"filter\": {\"_id\": \"" + DB + "\"}}")))).getFirst().asDocument().getString("primary").getValue();
        String other = RouterClient.requireOk("listShards", router.run("admin", ExtendedJson.parse("{\"listShards\": 1}"))).getArray("shards")
                .stream().map(s -> s.asDocument().getString("_id").getValue()).filter(id -> !id.equals(primary)).findFirst().orElse(primary);
        if (!other.equals(primary)) {
            RouterClient.requireOk("moveChunk", steps.run("admin", "{\"moveChunk\": \"" + buckets + "\", \"find\": " + seattle
                    + ", \"to\": \"" + other + "\"}"));
        }
    }

    /** Inserts every row of the file through the router; returns how many the router acknowledged. */
    private int insertMeasurements() {
        List<BsonDocument> rows = WeatherCsv.measurements(weatherFile, "date");
        int inserted = 0;
        for (int from = 0; from < rows.size(); from += BATCH) {
            BsonDocument insert = new BsonDocument("insert", new BsonString(COLLECTION))
                    .append("documents", new BsonArray(rows.subList(from, Math.min(rows.size(), from + BATCH))));
            inserted += RouterClient.requireOk("insert", router.run(DB, insert)).getNumber("n").intValue();
        }
        return inserted;
    }

    private long count(String collection) {
        return RouterClient.requireOk("count", router.run(DB, new BsonDocument("count", new BsonString(collection)))).getNumber("n").longValue();
    }

    private void printDocuments(BsonDocument reply) {
        RouterClient.requireOk("query", reply);
        for (BsonValue doc : Demo.firstBatch(reply)) {
            steps.print("     " + ExtendedJson.toJson(doc.asDocument()));
        }
    }
}
