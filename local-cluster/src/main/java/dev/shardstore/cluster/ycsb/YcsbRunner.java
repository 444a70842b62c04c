package dev.shardstore.cluster.ycsb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs YCSB's own client ({@code site.ycsb.Client}) in a child JVM on this launcher's classpath — the
 * client ends with {@code System.exit}, so it cannot share this process — and reads its exported
 * measurements. The child's console output goes to a log file next to the export.
 *
 * @param workDir    where export and log files go
 * @param properties YCSB properties for every phase (workload mix, record count and size, binding properties)
 */
public record YcsbRunner(Path workDir, Map<String, String> properties) {
    public YcsbRunner {
        properties = Map.copyOf(properties);
    }

    /**
     * This runner with its phases held to {@code opsPerSecond} operations/s over all their threads (YCSB's
     * {@code target}: each thread sleeps to keep its share of the rate).
     *
     * @throws IllegalArgumentException when {@code opsPerSecond} is not positive
     */
    public YcsbRunner throttled(long opsPerSecond) {
        if (opsPerSecond < 1) {
            throw new IllegalArgumentException("a throttle must be at least 1 operation/s, not " + opsPerSecond);
        }
        Map<String, String> limited = new HashMap<>(properties);
        limited.put("target", Long.toString(opsPerSecond));
        return new YcsbRunner(workDir, limited);
    }

    /**
     * One phase of YCSB against {@code target}.
     *
     * @param load    YCSB's load phase ({@code -load}: insert the records) instead of its transaction phase
     * @param threads client threads
     * @throws IllegalStateException when YCSB exits with an error (the message names its log)
     */
    public YcsbResult run(YcsbTarget target, boolean load, int threads) {
        String phase = target.name() + (load ? "-load" : "-run");
        Path export = workDir.resolve(phase + ".json");
        Path log = workDir.resolve(phase + ".log");
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()),
                "-Xmx1g", "-cp", System.getProperty("java.class.path"), "site.ycsb.Client",
                load ? "-load" : "-t", "-db", target.binding().getName(), "-threads", Integer.toString(threads)));
        properties.forEach((k, v) -> command.addAll(List.of("-p", k + "=" + v)));
        command.addAll(List.of("-p", "measurementtype=hdrhistogram", "-p", "hdrhistogram.percentiles=50,95,99",
                "-p", "exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter", "-p", "exportfile=" + export));
        try {
            Files.createDirectories(workDir);
            Files.deleteIfExists(export);
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            int status = process.waitFor();
            if (status != 0 || !Files.isRegularFile(export)) {
                throw new IllegalStateException("YCSB " + phase + " failed (exit status " + status + "); see " + log);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while YCSB " + phase + " ran", e);
        }
        return YcsbResult.read(export);
    }
}
