package dev.shardstore.cluster.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DocumentReaderTest {
    @TempDir
    Path dir;

    @Test
    void readsAJsonArray() throws IOException {
        Path file = write("cities.json", """
                [
                  {"name": "Paris", "country": "FR", "pop": 2148000, "area": 105.4, "_id": {"$oid": "5f1d7f1e2b3c4d5e6f708192"}},
                  {"name": "Lyon", "tags": ["a", "b"], "nested": {"x": null}}
                ]
                """);
        List<BsonDocument> docs = readAll(file, 10);

        assertThat(docs).hasSize(2);
        assertThat(docs.get(0).getString("name").getValue()).isEqualTo("Paris");
        assertThat(docs.get(0).get("pop").isInt32()).isTrue();
        assertThat(docs.get(0).getDouble("area").getValue()).isEqualTo(105.4);
        assertThat(docs.get(0).get("_id").isObjectId()).isTrue();
        assertThat(docs.get(1).getArray("tags")).hasSize(2);
        assertThat(docs.get(1).getDocument("nested").get("x").isNull()).isTrue();
    }

    @Test
    void readsJsonLinesAndAnEmptyArray() throws IOException {
        Path lines = write("events.jsonl", "{\"n\": 1}\n\n{\"n\": 2}\n{\"n\": 3.0}\n");
        List<BsonDocument> docs = readAll(lines, 2);
        assertThat(docs).extracting(d -> d.get("n").isInt32() ? "int" : d.get("n").isDouble() ? "double" : "other")
                .containsExactly("int", "int", "double");

        assertThat(readAll(write("empty.json", "[ ]"), 10)).isEmpty();
        assertThat(readAll(write("blank.json", ""), 10)).isEmpty();
    }

    @Test
    void readsCsvWithTypedNumbers() throws IOException {
        Path file = write("zips.csv", """
                zip_code,latitude,population,city,note
                01234,42.06,12000,"Springfield, MA",
                99501,61.2,9000000000,Anchorage,"say ""hi""\"

                """);
        List<BsonDocument> docs = readAll(file, 10);

        assertThat(docs).hasSize(2);
        BsonDocument first = docs.get(0);
        assertThat(first.getString("zip_code").getValue()).isEqualTo("01234");
        assertThat(first.getDouble("latitude").getValue()).isEqualTo(42.06);
        assertThat(first.getInt32("population").getValue()).isEqualTo(12000);
        assertThat(first.getString("city").getValue()).isEqualTo("Springfield, MA");
        assertThat(first.getString("note").getValue()).isEmpty();
        assertThat(docs.get(1).getInt64("population").getValue()).isEqualTo(9_000_000_000L);
        assertThat(docs.get(1).getInt32("zip_code").getValue()).isEqualTo(99501);
        assertThat(docs.get(1).getString("note").getValue()).isEqualTo("say \"hi\"");
    }

    @Test
    void readsGzippedFilesByExtension() throws IOException {
        Path json = dir.resolve("docs.json.gz");
        Path csv = dir.resolve("rows.csv.gz");
        gzip(json, "[{\"a\": 1}, {\"a\": 2}]");
        gzip(csv, "a,b\n1,x\n2,y\n");

        assertThat(readAll(json, 10)).hasSize(2);
        assertThat(readAll(csv, 1)).extracting(d -> d.getInt32("a").getValue()).containsExactly(1, 2);
        try (InputFile file = InputFile.open(csv)) {
            file.content().readAllBytes();
            assertThat(file.bytesRead()).isEqualTo(Files.size(csv));
        }
    }

    @Test
    void batchesHoldAtMostTheBatchSize() throws IOException {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 25; i++) {
            lines.append("{\"i\": ").append(i).append("}\n");
        }
        Path file = write("many.ndjson", lines.toString());
        try (InputFile input = InputFile.open(file)) {
            DocumentReader reader = DocumentReader.of(input);
            List<Integer> sizes = new ArrayList<>();
            for (Optional<InsertBatch> batch; (batch = InsertBatch.next(reader, "c", 10)).isPresent(); ) {
                BsonDocument command = BsonDocument.parse(new String(batch.get().body(), StandardCharsets.UTF_8));
                assertThat(command.getFirstKey()).isEqualTo("insert");
                assertThat(command.getString("insert").getValue()).isEqualTo("c");
                assertThat(command.getBoolean("ordered").getValue()).isFalse();
                assertThat(command.getArray("documents")).hasSize(batch.get().documents());
                sizes.add(batch.get().documents());
            }
            assertThat(sizes).containsExactly(10, 10, 5);
        }
    }

    @Test
    void malformedInputNamesFileAndPosition() throws IOException {
        Path broken = write("broken.json", "[{\"a\": 1},\n {\"a\": }]");
        assertThatThrownBy(() -> readAll(broken, 10))
                .isInstanceOf(LoadException.class)
                .hasMessageContaining("broken.json line 2")
                .hasMessageContaining("malformed JSON");

        Path notObjects = write("numbers.json", "[1, 2]");
        assertThatThrownBy(() -> readAll(notObjects, 10))
                .isInstanceOf(LoadException.class)
                .hasMessageContaining("document 1 is VALUE_NUMBER_INT, not a JSON object");

        Path wide = write("wide.csv", "a,b\n1,2\n1,2,3\n");
        assertThatThrownBy(() -> readAll(wide, 10))
                .isInstanceOf(LoadException.class)
                .hasMessageContaining("wide.csv line 3: 3 fields, but the header names 2");
    }

    @Test
    void missingFilesAndUnknownFormatsAreNamed() throws IOException {
        assertThatThrownBy(() -> InputFile.open(dir.resolve("nope.json")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("file not found").hasMessageContaining("nope.json");
        Path xml = write("data.xml", "<a/>");
        assertThatThrownBy(() -> InputFile.open(xml))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot tell the format of").hasMessageContaining("*.csv");
        Path fakeGzip = write("plain.json.gz", "[]");
        assertThatThrownBy(() -> InputFile.open(fakeGzip))
                .hasMessageContaining("as gzip");
    }

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    private static void gzip(Path file, String content) throws IOException {
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(content.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Reads every document the way the loader does: through insert batches. */
    private static List<BsonDocument> readAll(Path path, int batchSize) {
        List<BsonDocument> docs = new ArrayList<>();
        try (InputFile file = InputFile.open(path)) {
            DocumentReader reader = DocumentReader.of(file);
            for (Optional<InsertBatch> batch; (batch = InsertBatch.next(reader, "c", batchSize)).isPresent(); ) {
                BsonDocument command = BsonDocument.parse(new String(batch.get().body(), StandardCharsets.UTF_8));
                command.getArray("documents").stream().map(BsonValue::asDocument).forEach(docs::add);
            }
        }
        return docs;
    }
}
