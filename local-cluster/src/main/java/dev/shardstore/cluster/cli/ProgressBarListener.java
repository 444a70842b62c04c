package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.load.InputFile;
import dev.shardstore.cluster.load.LoadListener;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.jspecify.annotations.Nullable;

/**
 * Shows a load's progress on stderr: bytes of the file read (KiB or MiB) and documents sent. On a terminal it is a bar
 * redrawn in place; otherwise (a log file, CI) one plain line every few seconds, since a redrawn bar written to a file
 * is every frame of it. Which one: the system property {@code shardstore.progress} ({@code bar} or {@code lines}, set by
 * {@code ./cluster} from {@code [ -t 2 ]}), else a bar when the JVM has a console.
 */
final class ProgressBarListener implements LoadListener {
    private static final long MIB = 1 << 20;
    private static final int LINE_INTERVAL_MILLIS = 5_000;

    private final boolean terminal;

    private @Nullable ProgressBar bar;

    ProgressBarListener() {
        this(isTerminal(System.getProperty("shardstore.progress"), System.console() != null));
    }

    ProgressBarListener(boolean terminal) {
        this.terminal = terminal;
    }

    /** Whether progress goes to a terminal: {@code property} ("bar" or "lines") decides when set. */
    static boolean isTerminal(String property, boolean hasConsole) {
        return property == null || property.isBlank() ? hasConsole : property.equals("bar");
    }

    @Override
    public void started(InputFile file) {
        boolean large = file.size() >= 16 * MIB;
        bar = new ProgressBarBuilder()
                .setTaskName(file.path().getFileName().toString())
                .setInitialMax(file.size())
                .setUnit(large ? " MiB" : " KiB", large ? MIB : 1024)
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(terminal ? 250 : LINE_INTERVAL_MILLIS)
                .setConsumer(terminal ? new ConsoleProgressBarConsumer(System.err) : new DelegatingProgressBarConsumer(System.err::println))
                .showSpeed()
                .build();
    }

    @Override
    public void progress(long bytesRead, long documentsSent) {
        ProgressBar shown = bar;
        if (shown == null) {
            return; // the loader calls started() first; nothing to draw on before it
        }
        shown.stepTo(bytesRead);
        shown.setExtraMessage("%,d docs".formatted(documentsSent));
    }

    @Override
    public void finished() {
        if (bar != null) {
            bar.close();
        }
    }
}
