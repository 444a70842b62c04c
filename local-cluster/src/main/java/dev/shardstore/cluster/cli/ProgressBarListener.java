package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.load.InputFile;
import dev.shardstore.cluster.load.LoadListener;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/** Draws a load's progress on stderr: bytes of the file read (KiB or MiB) and documents sent. */
final class ProgressBarListener implements LoadListener {
    private static final long MIB = 1 << 20;

    private ProgressBar bar;

    @Override
    public void started(InputFile file) {
        boolean large = file.size() >= 16 * MIB;
        bar = new ProgressBarBuilder()
                .setTaskName(file.path().getFileName().toString())
                .setInitialMax(file.size())
                .setUnit(large ? " MiB" : " KiB", large ? MIB : 1024)
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(250)
                .setConsumer(new ConsoleProgressBarConsumer(System.err))
                .showSpeed()
                .build();
    }

    @Override
    public void progress(long bytesRead, long documentsSent) {
        bar.stepTo(bytesRead);
        bar.setExtraMessage("%,d docs".formatted(documentsSent));
    }

    @Override
    public void finished() {
        if (bar != null) {
            bar.close();
        }
    }
}
