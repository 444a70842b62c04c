package dev.shardstore.cluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.cluster.load.InputFile;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Progress into a log is a few plain lines, not every redrawn frame of a bar. */
class ProgressBarListenerTest {
    @TempDir
    Path dir;

    @Test
    void withoutATerminalProgressIsAPlainLineEveryFewSeconds() throws Exception {
        String out = drive().lines();
        assertThat(out).doesNotContain("\r");
        assertThat(out.lines().filter(l -> !l.isBlank()).count()).isBetween(1L, 3L);
        assertThat(out).contains("docs");
    }

    @Test
    void onATerminalTheBarIsRedrawnInPlace() throws Exception {
        assertThat(drive().bar()).contains("\r");
    }

    @Test
    void thePropertyDecidesAndTheConsoleIsTheFallback() {
        assertThat(ProgressBarListener.isTerminal("lines", true)).isFalse();
        assertThat(ProgressBarListener.isTerminal("bar", false)).isTrue();
        assertThat(ProgressBarListener.isTerminal(null, true)).isTrue();
        assertThat(ProgressBarListener.isTerminal("", false)).isFalse();
    }

    /**
     * What a terminal bar and a log's lines show of one load, each captured from its own stderr.
     *
     * @param bar   the terminal bar's output
     * @param lines the plain lines' output
     */
    private record Frames(String bar, String lines) {}

    /**
     * One load reported to a terminal bar and to plain lines side by side, until the bar has been redrawn eight times (about
     * two seconds at its 250 ms interval): the lines see the same stretch of time.
     */
    private Frames drive() throws Exception {
        Path file = Files.writeString(dir.resolve("data.json"), "[" + "{\"a\": 1},".repeat(2000) + "{}]");
        PrintStream previous = System.err;
        ByteArrayOutputStream bar = new ByteArrayOutputStream();
        ByteArrayOutputStream lines = new ByteArrayOutputStream();
        try (InputFile input = InputFile.open(file)) {
            // each listener writes to the stderr it was started with
            System.setErr(new PrintStream(bar, true, StandardCharsets.UTF_8));
            ProgressBarListener terminal = new ProgressBarListener(true);
            terminal.started(input);
            System.setErr(new PrintStream(lines, true, StandardCharsets.UTF_8));
            ProgressBarListener log = new ProgressBarListener(false);
            log.started(input);
            AtomicInteger step = new AtomicInteger();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
                int i = Math.min(step.incrementAndGet(), 20);
                terminal.progress(input.size() * i / 20, i * 100L);
                log.progress(input.size() * i / 20, i * 100L);
                return bar.toString(StandardCharsets.UTF_8).chars().filter(c -> c == '\r').count() >= 8;
            });
            terminal.finished();
            log.finished();
        } finally {
            System.setErr(previous);
        }
        return new Frames(bar.toString(StandardCharsets.UTF_8), lines.toString(StandardCharsets.UTF_8));
    }
}
