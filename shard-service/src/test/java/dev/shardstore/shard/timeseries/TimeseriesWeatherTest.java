package dev.shardstore.shard.timeseries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shardstore.shard.ShardIntegrationTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * The bundled weather data (data/weather.csv: Seattle and New York daily, 2012–2015) loaded as a time-series
 * collection on one shard: every measurement comes back exactly once, per-location aggregates equal the figures
 * computed from the file, and the buckets are far fewer than the measurements.
 */
class TimeseriesWeatherTest extends ShardIntegrationTest {
    private static final String DB = "weatherdb";
    private static final Path FILE = Path.of("..", "data", "weather.csv");

    @Test
    void theWeatherFileRoundTripsThroughBuckets() throws IOException {
        List<BsonDocument> rows = read();
        assertThat(rows).hasSize(2922);
        assertOk(run(DB, "{create: 'weather', timeseries: {timeField: 'date', metaField: 'location', granularity: 'hours'}}"));
        for (int from = 0; from < rows.size(); from += 500) {
            BsonDocument reply = run(DB, new BsonDocument("insert", new BsonString("weather"))
                    .append("documents", new BsonArray(rows.subList(from, Math.min(rows.size(), from + 500)))));
            assertOk(reply);
        }

        List<BsonDocument> found = documentsOf(DB, "weather", 10_000);
        assertThat(found).hasSize(rows.size());
        Set<String> keys = new HashSet<>();
        for (BsonDocument m : found) {
            assertThat(keys.add(canonical(m))).as("measurement returned twice: %s", m).isTrue();
        }
        Set<String> expected = new HashSet<>();
        rows.forEach(r -> expected.add(canonical(r)));
        assertThat(keys).isEqualTo(expected);

        Map<String, double[]> figures = new TreeMap<>(); // location → {sum, count, max}
        for (BsonDocument r : rows) {
            double[] f = figures.computeIfAbsent(r.getString("location").getValue(), k -> new double[] {0, 0, Double.NEGATIVE_INFINITY});
            double t = r.getDouble("temp_max").getValue();
            f[0] += t;
            f[1]++;
            f[2] = Math.max(f[2], t);
        }
        List<BsonDocument> groups = run(DB, """
                {aggregate: 'weather', cursor: {}, pipeline: [{$group: {_id: '$location', avg: {$avg: '$temp_max'},
                 max: {$max: '$temp_max'}, n: {$sum: 1}}}, {$sort: {_id: 1}}]}""")
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
        assertThat(groups).extracting(g -> g.getString("_id").getValue()).containsExactlyElementsOf(figures.keySet());
        for (BsonDocument g : groups) {
            double[] f = figures.get(g.getString("_id").getValue());
            assertThat(g.getInt32("n").getValue()).isEqualTo((int) f[1]);
            assertThat(g.getDouble("avg").getValue()).isCloseTo(f[0] / f[1], within(1e-9));
            assertThat(g.getDouble("max").getValue()).isEqualTo(f[2]);
        }

        int buckets = documentsOf(DB, "system.buckets.weather", 10_000).size();
        // 30-day buckets of daily measurements, per location: about 2 × 49 buckets for 2,922 measurements
        assertThat(buckets).isLessThan(rows.size() / 20);
    }

    /** The measurement without its generated {@code _id}, fields by name (unpacking puts the meta field last). */
    private static String canonical(BsonDocument measurement) {
        BsonDocument sorted = new BsonDocument();
        new TreeMap<>(measurement).forEach((name, value) -> {
            if (!name.equals("_id")) {
                sorted.append(name, value);
            }
        });
        return sorted.toJson();
    }

    private static List<BsonDocument> read() throws IOException {
        List<String> lines = Files.readAllLines(FILE);
        assertThat(lines.getFirst()).isEqualTo("location,date,precipitation,temp_max,temp_min,wind,weather");
        List<BsonDocument> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            long date = LocalDate.parse(f[1]).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
            rows.add(new BsonDocument("location", new BsonString(f[0])).append("date", new BsonDateTime(date))
                    .append("precipitation", new BsonDouble(Double.parseDouble(f[2])))
                    .append("temp_max", new BsonDouble(Double.parseDouble(f[3])))
                    .append("temp_min", new BsonDouble(Double.parseDouble(f[4])))
                    .append("wind", new BsonDouble(Double.parseDouble(f[5])))
                    .append("weather", new BsonString(f[6])));
        }
        return rows;
    }

    private List<BsonDocument> documentsOf(String db, String collection, int batchSize) {
        return run(db, new BsonDocument("find", new BsonString(collection)).append("batchSize", new BsonInt32(batchSize)))
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private static void assertOk(BsonDocument reply) {
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
    }
}
