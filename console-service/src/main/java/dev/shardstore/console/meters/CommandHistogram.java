package dev.shardstore.console.meters;

import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A shard's command latency histogram at one moment: its {@code shardstore.shard.command} timer's cumulative bucket
 * counts (Prometheus's {@code shardstore_shard_command_seconds_bucket}, summed over the timer's {@code command} and
 * {@code outcome} tags, which share one bucket layout) and the process's start time. The shard publishes the timer as
 * a percentile histogram (shard-service's {@code ShardMetrics}) because client-side percentiles cannot be added up
 * over tags nor over an interval; bucket counts can. Immutable.
 *
 * @param startSeconds the shard process's {@code process_start_time_seconds}; another one means it restarted and its
 *                     counters began again from zero
 * @param bounds       the buckets' upper bounds in seconds, ascending, the last one {@code +Inf}
 * @param cumulative   per bucket, how many commands took at most its bound since the process started
 */
public record CommandHistogram(double startSeconds, double[] bounds, long[] cumulative) {
    /** The timer's buckets in Prometheus's text format. */
    public static final String BUCKET_METRIC = "shardstore_shard_command_seconds_bucket";
    private static final String START_METRIC = "process_start_time_seconds";
    private static final Pattern LE = Pattern.compile("le=\"([^\"]*)\"");

    public CommandHistogram {
        if (bounds.length == 0 || bounds.length != cumulative.length || bounds[bounds.length - 1] != Double.POSITIVE_INFINITY) {
            throw new IllegalArgumentException("a histogram needs as many counts as bounds, the last bound +Inf: " + Arrays.toString(bounds));
        }
        bounds = bounds.clone();
        cumulative = cumulative.clone();
    }

    /** The buckets' upper bounds (a copy). */
    @Override
    public double[] bounds() {
        return bounds.clone();
    }

    /** The cumulative counts per bucket (a copy). */
    @Override
    public long[] cumulative() {
        return cumulative.clone();
    }

    /** Commands counted, the {@code +Inf} bucket. */
    public long count() {
        return cumulative[cumulative.length - 1];
    }

    /**
     * Reads the histogram from a Prometheus text exposition ({@code /actuator/prometheus}, format 0.0.4): every
     * {@link #BUCKET_METRIC} line, counts summed per {@code le}, and {@code process_start_time_seconds}.
     *
     * @return the histogram; an empty one (count 0) when the text has no bucket of the timer (the shard has not run a
     *         command yet: the timer registers with its first)
     * @throws IllegalArgumentException when a line's number does not parse
     */
    public static CommandHistogram parse(String exposition) {
        java.util.TreeMap<Double, Long> buckets = new java.util.TreeMap<>();
        double start = 0;
        for (String line : exposition.split("\n")) {
            if (line.startsWith(BUCKET_METRIC + "{")) {
                int close = line.lastIndexOf('}');
                Matcher le = LE.matcher(line.substring(0, close));
                if (!le.find()) {
                    throw new IllegalArgumentException("a bucket without le: " + line);
                }
                double bound = le.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le.group(1));
                buckets.merge(bound, (long) Double.parseDouble(firstField(line.substring(close + 1))), Long::sum);
            } else if (line.startsWith(START_METRIC + " ")) {
                start = Double.parseDouble(firstField(line.substring(START_METRIC.length())));
            }
        }
        buckets.putIfAbsent(Double.POSITIVE_INFINITY, 0L);
        return new CommandHistogram(start, buckets.keySet().stream().mapToDouble(Double::doubleValue).toArray(),
                buckets.values().stream().mapToLong(Long::longValue).toArray());
    }

    private static String firstField(String rest) {
        String value = rest.strip();
        int space = value.indexOf(' ');
        return space < 0 ? value : value.substring(0, space);
    }

    /**
     * What was counted after {@code earlier}: the bucket differences; this histogram as it is when the shard restarted
     * in between (another start time, or a count that went down), since its counters began again at zero, and when the
     * layouts differ (the earlier one was empty: the timer had no command yet).
     */
    public CommandHistogram since(CommandHistogram earlier) {
        boolean restarted = earlier.startSeconds != startSeconds || !Arrays.equals(earlier.bounds, bounds);
        long[] delta = new long[cumulative.length];
        for (int i = 0; i < cumulative.length && !restarted; i++) {
            delta[i] = cumulative[i] - earlier.cumulative[i];
            restarted = delta[i] < 0;
        }
        return restarted ? this : new CommandHistogram(startSeconds, bounds, delta);
    }

    /**
     * The {@code q} quantile in seconds, as Prometheus's {@code histogram_quantile} estimates it: linear within the bucket
     * that holds rank {@code q × count}, the highest finite bound when that bucket is {@code +Inf}; NaN without commands.
     */
    public double quantile(double q) {
        long total = count();
        if (total == 0) {
            return Double.NaN;
        }
        double rank = q * total;
        int i = 0;
        while (cumulative[i] < rank) {
            i++;
        }
        if (bounds[i] == Double.POSITIVE_INFINITY) {
            return i == 0 ? Double.NaN : bounds[i - 1];
        }
        double lower = i == 0 ? 0 : bounds[i - 1];
        long below = i == 0 ? 0 : cumulative[i - 1];
        return lower + (bounds[i] - lower) * (rank - below) / (cumulative[i] - below);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CommandHistogram h && h.startSeconds == startSeconds && Arrays.equals(h.bounds, bounds)
                && Arrays.equals(h.cumulative, cumulative);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(bounds) + Arrays.hashCode(cumulative);
    }

    @Override
    public String toString() {
        return "CommandHistogram[start=" + startSeconds + ", bounds=" + Arrays.toString(bounds) + ", cumulative=" + Arrays.toString(cumulative) + "]";
    }
}
