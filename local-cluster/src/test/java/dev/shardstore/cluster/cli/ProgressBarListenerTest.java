package dev.shardstore.cluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.cluster.load.InputFile;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Progress into a log is a few plain lines, not every redrawn frame of a bar. */
class ProgressBarListenerTest {
    @TempDir
    Path dir;

    @Test
    void withoutATerminalProgressIsAPlainLineEveryFewSeconds() throws Exception {
        String out = drive(false);
        assertThat(out).doesNotContain("\r");
        assertThat(out.lines().filter(l -> !l.isBlank()).count()).isBetween(1L, 3L);
        assertThat(out).contains("docs");
    }

    @Test
    void onATerminalTheBarIsRedrawnInPlace() throws Exception {
        assertThat(drive(true)).contains("\r");
    }

    @Test
    void thePropertyDecidesAndTheConsoleIsTheFallback() {
        assertThat(ProgressBarListener.isTerminal("lines", true)).isFalse();
        assertThat(ProgressBarListener.isTerminal("bar", false)).isTrue();
        assertThat(ProgressBarListener.isTerminal(null, true)).isTrue();
        assertThat(ProgressBarListener.isTerminal("", false)).isFalse();
    }

    /** Two seconds of progress (about eight frames of a terminal bar), captured from stderr. */
    private String drive(boolean terminal) throws Exception {
        Path file = Files.writeString(dir.resolve("data-" + terminal + ".json"), "[" + "{\"a\": 1},".repeat(2000) + "{}]");
        PrintStream previous = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (InputFile input = InputFile.open(file)) {
            ProgressBarListener listener = new ProgressBarListener(terminal);
            listener.started(input);
            for (int i = 1; i <= 20; i++) {
                listener.progress(input.size() * i / 20, i * 100L);
                Thread.sleep(100);
            }
            listener.finished();
        } finally {
            System.setErr(previous);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
