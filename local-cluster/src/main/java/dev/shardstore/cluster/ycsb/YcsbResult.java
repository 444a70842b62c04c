package dev.shardstore.cluster.ycsb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One YCSB phase's figures, read from the file YCSB's {@code JSONArrayMeasurementsExporter} writes.
 *
 * @param throughput overall operations per second
 * @param operations per operation type ({@code READ}, {@code UPDATE}, {@code SCAN}, {@code INSERT},
 *                   {@code READ-MODIFY-WRITE}), in YCSB's order
 */
public record YcsbResult(double throughput, Map<String, Operation> operations) {
    public YcsbResult {
        operations = Map.copyOf(Objects.requireNonNull(operations, "operations"));
    }

    /**
     * The figures of one operation type.
     *
     * @param count  operations run
     * @param errors operations that did not return OK or NOT_FOUND
     * @param p50Us  median latency, microseconds
     * @param p95Us  95th percentile, microseconds
     * @param p99Us  99th percentile, microseconds
     */
    public record Operation(long count, long errors, double p50Us, double p95Us, double p99Us) {
    }

    /** Reads an export file written with {@code hdrhistogram.percentiles=50,95,99}. */
    public static YcsbResult read(Path exportFile) {
        JsonNode rows;
        try {
            rows = JsonMapper.builder().build().readTree(exportFile.toFile());
        } catch (tools.jackson.core.JacksonException e) {
            throw new UncheckedIOException(new IOException("unreadable YCSB export " + exportFile + ": " + e.getMessage(), e));
        }
        double throughput = 0;
        Map<String, Map<String, Double>> byMetric = new LinkedHashMap<>();
        for (JsonNode row : rows) {
            String metric = row.get("metric").asString();
            String measurement = row.get("measurement").asString();
            JsonNode v = row.get("value");
            // YCSB writes "NaN" (a string) for the average latency of an operation that never succeeded
            double value = v.isNumber() ? v.asDouble() : Double.parseDouble(v.asString());
            if (metric.equals("OVERALL") && measurement.equals("Throughput(ops/sec)")) {
                throughput = value;
            } else if (!metric.equals("OVERALL") && !metric.startsWith("CLEANUP") && !metric.endsWith("-FAILED")) {
                byMetric.computeIfAbsent(metric, m -> new LinkedHashMap<>()).put(measurement, value);
            }
        }
        Map<String, Operation> operations = new LinkedHashMap<>();
        byMetric.forEach((metric, m) -> {
            long errors = m.entrySet().stream()
                    .filter(e -> e.getKey().startsWith("Return=") && !e.getKey().equals("Return=OK") && !e.getKey().equals("Return=NOT_FOUND"))
                    .mapToLong(e -> e.getValue().longValue()).sum();
            if (m.containsKey("Operations")) {
                operations.put(metric, new Operation(m.get("Operations").longValue(), errors,
                        m.getOrDefault("50thPercentileLatency(us)", Double.NaN),
                        m.getOrDefault("95thPercentileLatency(us)", Double.NaN),
                        m.getOrDefault("99thPercentileLatency(us)", Double.NaN)));
            }
        });
        return new YcsbResult(throughput, operations);
    }
}
