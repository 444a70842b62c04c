package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.ClusterHome;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code logs NAME [-f]}: prints a component's log file, optionally following it as it grows. */
@Command(name = "logs", mixinStandardHelpOptions = true, description = "Print a component's log (e.g. shard2, router1, config, postgres, kafka).")
final class LogsCommand implements Callable<Integer> {
    private static final long FOLLOW_POLL_MILLIS = 300;

    @Mixin
    HomeOption home;

    @Parameters(paramLabel = "NAME", description = "the component")
    String name;

    @Option(names = {"-f", "--follow"}, description = "keep printing what is appended, until Ctrl-C")
    boolean follow;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException, InterruptedException {
        ClusterHome cluster = new ClusterHome(home.dir());
        Path log = cluster.log(name);
        if (!Files.exists(log)) {
            throw new IllegalArgumentException("no log for '" + name + "' at " + log + "; logs there: " + available(cluster.logs()));
        }
        PrintWriter out = spec.commandLine().getOut();
        long position = copyFrom(log, 0, out);
        while (follow) {
            Thread.sleep(FOLLOW_POLL_MILLIS);
            long size = Files.exists(log) ? Files.size(log) : 0;
            position = copyFrom(log, size < position ? 0 : position, out); // a fresh start truncates the log
        }
        return 0;
    }

    /** Prints the log from byte {@code from} to its current end; returns the new position. */
    private static long copyFrom(Path log, long from, PrintWriter out) throws IOException {
        try (InputStream in = Files.newInputStream(log)) {
            in.skipNBytes(Math.min(from, Files.size(log)));
            byte[] bytes = in.readAllBytes();
            out.print(new String(bytes, StandardCharsets.UTF_8));
            out.flush();
            return from + bytes.length;
        }
    }

    private static String available(Path logs) throws IOException {
        if (!Files.isDirectory(logs)) {
            return "none (no cluster was started with this --home)";
        }
        try (Stream<Path> files = Files.list(logs)) {
            return String.join(", ", files.map(p -> p.getFileName().toString().replaceFirst("\\.log$", "")).sorted().toList());
        }
    }
}
