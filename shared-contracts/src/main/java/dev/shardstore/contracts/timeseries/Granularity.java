package dev.shardstore.contracts.timeseries;

import java.util.Locale;

/**
 * A time-series collection's {@code granularity} and the bucketing it stands for (MongoDB manual, "Time Series
 * Granularity"): the longest time span one bucket covers ({@code bucketMaxSpanSeconds}) and the unit a bucket's
 * {@code control.min.<timeField>} is rounded down to ({@code bucketRoundingSeconds}). Declared from finest to coarsest: {@code collMod} may only move to a later one.
 */
public enum Granularity {
    /** Spans of one hour, rounded to the minute. */
    SECONDS(3_600, 60),
    /** Spans of one day, rounded to the hour. */
    MINUTES(86_400, 3_600),
    /** Spans of 30 days, rounded to the day. */
    HOURS(2_592_000, 86_400);

    private final int bucketMaxSpanSeconds;
    private final int bucketRoundingSeconds;

    Granularity(int bucketMaxSpanSeconds, int bucketRoundingSeconds) {
        this.bucketMaxSpanSeconds = bucketMaxSpanSeconds;
        this.bucketRoundingSeconds = bucketRoundingSeconds;
    }

    /** The longest span of one bucket, in seconds. */
    public int bucketMaxSpanSeconds() {
        return bucketMaxSpanSeconds;
    }

    /** What {@code control.min.<timeField>} is rounded down to, in seconds. */
    public int bucketRoundingSeconds() {
        return bucketRoundingSeconds;
    }

    /** The option's value as MongoDB spells it: {@code "seconds"}, {@code "minutes"}, {@code "hours"}. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }
}
