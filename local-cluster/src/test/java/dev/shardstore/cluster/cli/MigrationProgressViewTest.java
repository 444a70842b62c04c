package dev.shardstore.cluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/** A migration's progress into a log is one plain line per phase (and every five seconds), never a redrawn bar. */
class MigrationProgressViewTest {
    private static BsonDocument op(String phase, long documents) {
        return ExtendedJson.parse("{desc: 'MoveChunk', ns: 'geo.cities', phase: '" + phase + "', documentsCloned: " + documents
                + ", bytesCloned: 2500000, modsTransferred: 12, elapsedMillis: 2400}");
    }

    @Test
    void withoutATerminalEachPhaseIsOnePlainLine() {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (MigrationProgressView view = new MigrationProgressView("geo.cities", false)) {
            view.update(op("clone", 100));
            view.update(op("clone", 200));
            view.update(op("criticalSection", 300));
            view.update(op("commit", 300));
        } finally {
            System.setErr(original);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        assertThat(out).doesNotContain("\r");
        assertThat(out.lines()).containsExactly(
                "moveChunk geo.cities: clone, 100 documents (2.5 MB), 12 changes, 2.4 s",
                "moveChunk geo.cities: criticalSection, 300 documents (2.5 MB), 12 changes, 2.4 s",
                "moveChunk geo.cities: commit, 300 documents (2.5 MB), 12 changes, 2.4 s");
    }
}
