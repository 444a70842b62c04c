package dev.shardstore.cluster.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/** Expected figures computed straight from the bundled cities file, independently of the database. */
final class CitiesFile {
    private CitiesFile() {}

    /** Number of cities per country code in {@code data/cities.json.gz}. */
    static Map<String, Long> countsByCountry(Path file) {
        Map<String, Long> counts = new TreeMap<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file));
             JsonParser parser = JsonMapper.builder().build().createParser(in)) {
            if (parser.nextToken() != JsonToken.START_ARRAY) {
                throw new IllegalStateException(file + " is not a JSON array");
            }
            while (parser.nextToken() == JsonToken.START_OBJECT) {
                String country = null;
                while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
                    String field = parser.currentName();
                    parser.nextToken();
                    if ("country".equals(field)) {
                        country = parser.getString();
                    } else {
                        parser.skipChildren();
                    }
                }
                counts.merge(country, 1L, Long::sum);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return counts;
    }
}
