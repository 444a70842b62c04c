package dev.shardstore.cluster.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonString;

/**
 * Reads the bundled {@code data/weather.csv} (vega-datasets; see data/README.md) as time-series measurements:
 * {@code {<timeField>: date (UTC midnight), location, precipitation, temp_max, temp_min, wind, weather}}, numbers as
 * doubles.
 */
public final class WeatherCsv {
    private WeatherCsv() {}

    /**
     * @param timeField the name of the date field in the measurements
     * @throws UncheckedIOException when the file cannot be read
     */
    public static List<BsonDocument> measurements(Path file, String timeField) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            List<BsonDocument> rows = new ArrayList<>();
            for (String line : lines.subList(1, lines.size())) {
                if (line.isBlank()) {
                    continue;
                }
                String[] f = line.split(",", -1);
                rows.add(new BsonDocument(timeField, new BsonDateTime(LocalDate.parse(f[1]).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli()))
                        .append("location", new BsonString(f[0]))
                        .append("precipitation", new BsonDouble(Double.parseDouble(f[2])))
                        .append("temp_max", new BsonDouble(Double.parseDouble(f[3])))
                        .append("temp_min", new BsonDouble(Double.parseDouble(f[4])))
                        .append("wind", new BsonDouble(Double.parseDouble(f[5])))
                        .append("weather", new BsonString(f[6])));
            }
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + file, e);
        }
    }
}
