package dev.shardstore.cluster.cli;

import java.util.Objects;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * Shows a running migration on stderr from the donor's {@code currentOp} entries ({@code phase}, {@code documentsCloned},
 * {@code bytesCloned}, {@code modsTransferred}, {@code elapsedMillis}). On a terminal a bar of documents cloned redrawn
 * in place, with the phase and changes as its message; otherwise one plain line at each phase change and every five
 * seconds, as {@link ProgressBarListener} does for loads.
 */
final class MigrationProgressView implements AutoCloseable {
    private static final long LINE_INTERVAL_NANOS = 5_000_000_000L;

    private final String namespace;
    private final boolean terminal;
    private @Nullable ProgressBar bar;
    private @Nullable String lastPhase;
    private long lastLine;

    MigrationProgressView(String namespace) {
        this(namespace, ProgressBarListener.isTerminal(System.getProperty("shardstore.progress"), System.console() != null));
    }

    MigrationProgressView(String namespace, boolean terminal) {
        this.namespace = namespace;
        this.terminal = terminal;
    }

    /** Shows {@code op}, a donor's {@code currentOp} entry. */
    void update(BsonDocument op) {
        String phase = op.getString("phase").getValue();
        long documents = op.getNumber("documentsCloned").longValue();
        long bytes = op.getNumber("bytesCloned").longValue();
        long mods = op.getNumber("modsTransferred").longValue();
        if (terminal) {
            if (bar == null) {
                bar = new ProgressBarBuilder().setTaskName("moveChunk " + namespace).setInitialMax(-1).setUnit(" docs", 1)
                        .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).setConsumer(new ConsoleProgressBarConsumer(System.err))
                        .showSpeed().build();
            }
            bar.stepTo(documents);
            bar.setExtraMessage("%s, %.1f MB, %,d changes".formatted(phase, bytes / 1e6, mods));
            return;
        }
        long now = System.nanoTime();
        if (!Objects.equals(phase, lastPhase) || now - lastLine >= LINE_INTERVAL_NANOS) {
            System.err.println(line(op));
            lastPhase = phase;
            lastLine = now;
        }
    }

    /** One plain progress line, e.g. {@code moveChunk geo.cities: clone, 12,000 documents (3.1 MB), 40 changes, 2.4 s}. */
    static String line(BsonDocument op) {
        return "moveChunk %s: %s, %,d documents (%.1f MB), %,d changes, %.1f s".formatted(op.getString("ns").getValue(),
                op.getString("phase").getValue(), op.getNumber("documentsCloned").longValue(), op.getNumber("bytesCloned").longValue() / 1e6,
                op.getNumber("modsTransferred").longValue(), op.getNumber("elapsedMillis").longValue() / 1000.0);
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
        }
    }
}
