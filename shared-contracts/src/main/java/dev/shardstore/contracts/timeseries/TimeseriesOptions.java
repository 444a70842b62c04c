package dev.shardstore.contracts.timeseries;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Objects;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The {@code timeseries} option of {@code create} and {@code shardCollection}, normalized as MongoDB stores it
 * (and as {@code config.collections} keeps it as {@code timeseriesFields}): {@code {timeField, metaField?,
 * granularity?, bucketMaxSpanSeconds, bucketRoundingSeconds?}}. Either a {@link Granularity} (default
 * {@code seconds}) fixes the span and rounding, or custom {@code bucketMaxSpanSeconds} and
 * {@code bucketRoundingSeconds} (equal, 1 to 31,536,000) are given and no granularity is.
 *
 * @param timeField             the measurements' date field: a top-level name, not {@code _id}
 * @param metaField             the field measurements are grouped by, or null; a top-level name, not {@code _id},
 *                              not the time field
 * @param granularity           the granularity, or null for custom bucketing
 * @param bucketMaxSpanSeconds  the longest time span of a bucket, seconds
 * @param bucketRoundingSeconds what a bucket's lower time bound is rounded down to, seconds
 */
public record TimeseriesOptions(String timeField, @Nullable String metaField, @Nullable Granularity granularity,
        int bucketMaxSpanSeconds, int bucketRoundingSeconds) {
    /** MongoDB's upper bound of the custom bucketing parameters (one year). */
    public static final int MAX_BUCKETING_SECONDS = 31_536_000;
    private static final Set<String> FIELDS = Set.of("timeField", "metaField", "granularity", "bucketMaxSpanSeconds",
            "bucketRoundingSeconds");
    private static final Set<String> MODIFIABLE = Set.of("granularity", "bucketMaxSpanSeconds", "bucketRoundingSeconds");

    /**
     * @throws IllegalArgumentException for options {@link #parse} would refuse
     */
    public TimeseriesOptions {
        Objects.requireNonNull(timeField, "timeField");
        if (granularity != null && (bucketMaxSpanSeconds != granularity.bucketMaxSpanSeconds()
                || bucketRoundingSeconds != granularity.bucketRoundingSeconds())) {
            throw new IllegalArgumentException("bucketing does not match granularity " + granularity.value());
        }
        if (bucketMaxSpanSeconds < 1 || bucketMaxSpanSeconds > MAX_BUCKETING_SECONDS || bucketRoundingSeconds != bucketMaxSpanSeconds
                && granularity == null) {
            throw new IllegalArgumentException("bad custom bucketing " + bucketMaxSpanSeconds + "/" + bucketRoundingSeconds);
        }
    }

    /** Options with {@code granularity}'s bucketing. */
    public static TimeseriesOptions of(String timeField, @Nullable String metaField, Granularity granularity) {
        return new TimeseriesOptions(timeField, metaField, granularity, granularity.bucketMaxSpanSeconds(),
                granularity.bucketRoundingSeconds());
    }

    /**
     * Parses and validates the option given at {@code path} (e.g. {@code create.timeseries}).
     *
     * @throws CommandException naming the field: TypeMismatch (14) for a non-document or a wrongly typed field;
     *                          Location40415 for an unknown field; Location40414 for a missing {@code timeField};
     *                          BadValue (2) for an unknown granularity; InvalidOptions (72) for a dotted or
     *                          {@code _id} field name, a metaField equal to the timeField, granularity together
     *                          with custom bucketing, only one of the two custom parameters, unequal or out of
     *                          range custom parameters
     */
    public static TimeseriesOptions parse(BsonValue value, String path) {
        if (!value.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field '" + path + "' is the wrong type '"
                    + value.getBsonType() + "', expected type 'object'");
        }
        BsonDocument spec = value.asDocument();
        for (String field : spec.keySet()) {
            if (!FIELDS.contains(field)) {
                throw new CommandException(ErrorCode.Location40415, "BSON field '" + path + "." + field + "' is an unknown field.");
            }
        }
        if (!spec.containsKey("timeField")) {
            throw new CommandException(ErrorCode.Location40414, "BSON field '" + path + ".timeField' is missing but a required field");
        }
        String timeField = fieldName(spec.get("timeField"), path + ".timeField");
        String metaField = spec.containsKey("metaField") ? fieldName(spec.get("metaField"), path + ".metaField") : null;
        if (timeField.equals(metaField)) {
            throw new CommandException(ErrorCode.InvalidOptions, "'" + path + ".metaField' cannot be the same as the timeField '"
                    + timeField + "'");
        }
        if (spec.containsKey("granularity") || !spec.containsKey("bucketRoundingSeconds") && !spec.containsKey("bucketMaxSpanSeconds")) {
            Granularity granularity = spec.containsKey("granularity")
                    ? granularity(spec.get("granularity"), path + ".granularity") : Granularity.SECONDS;
            if (spec.containsKey("bucketRoundingSeconds")) {
                throw new CommandException(ErrorCode.InvalidOptions, "'" + path + ".bucketRoundingSeconds' is not allowed with '" + path
                        + ".granularity'");
            }
            // MongoDB lists the granularity's span next to it and accepts it back, but no other span
            if (spec.containsKey("bucketMaxSpanSeconds")
                    && seconds(spec.get("bucketMaxSpanSeconds"), path + ".bucketMaxSpanSeconds") != granularity.bucketMaxSpanSeconds()) {
                throw new CommandException(ErrorCode.InvalidOptions, "'" + path + ".bucketMaxSpanSeconds' can only be "
                        + granularity.bucketMaxSpanSeconds() + " with '" + path + ".granularity' " + granularity.value());
            }
            return of(timeField, metaField, granularity);
        }
        if (!spec.containsKey("bucketMaxSpanSeconds") || !spec.containsKey("bucketRoundingSeconds")) {
            throw new CommandException(ErrorCode.InvalidOptions, "'" + path + ".bucketMaxSpanSeconds' and '" + path
                    + ".bucketRoundingSeconds' must be set together");
        }
        int span = seconds(spec.get("bucketMaxSpanSeconds"), path + ".bucketMaxSpanSeconds");
        int rounding = seconds(spec.get("bucketRoundingSeconds"), path + ".bucketRoundingSeconds");
        if (span != rounding) {
            throw new CommandException(ErrorCode.InvalidOptions, "'" + path + ".bucketRoundingSeconds' (" + rounding + ") and '"
                    + path + ".bucketMaxSpanSeconds' (" + span + ") must be equal");
        }
        return new TimeseriesOptions(timeField, metaField, null, span, rounding);
    }

    /** The options as MongoDB lists them: {@code {timeField, metaField?, granularity?, bucketMaxSpanSeconds, bucketRoundingSeconds?}}. */
    public BsonDocument toDocument() {
        BsonDocument doc = new BsonDocument("timeField", new BsonString(timeField));
        if (metaField != null) {
            doc.append("metaField", new BsonString(metaField));
        }
        if (granularity != null) {
            doc.append("granularity", new BsonString(granularity.value()));
        }
        doc.append("bucketMaxSpanSeconds", new BsonInt32(bucketMaxSpanSeconds));
        if (granularity == null) {
            doc.append("bucketRoundingSeconds", new BsonInt32(bucketRoundingSeconds));
        }
        return doc;
    }

    /** The same options with bucketing by {@code granularity} ({@code collMod}). */
    public TimeseriesOptions withGranularity(Granularity newGranularity) {
        return of(timeField, metaField, newGranularity);
    }

    /**
     * These options after {@code collMod}'s {@code timeseries: {granularity?, bucketMaxSpanSeconds?,
     * bucketRoundingSeconds?}} (MongoDB manual, "collMod": time-series options). Bucketing only ever gets coarser, so
     * every bucket written before the change still spans at most the new {@code bucketMaxSpanSeconds}: the bucket
     * predicates built from the new options keep finding old measurements (mongo/src/mongo/db/s/README_timeseries.md "Sharding
     * metadata"). A granularity moves to a coarser one only ({@code seconds} → {@code minutes} → {@code hours}); custom
     * bucketing needs both parameters, equal, neither below the current ones; a granularity after custom bucketing
     * needs its span and rounding not below the current ones.
     *
     * @param value the {@code timeseries} value of the command
     * @param path  the option as errors name it, {@code collMod.timeseries}
     * @return the new options (equal to these when nothing changes)
     * @throws CommandException TypeMismatch (14) for a non-document or wrongly typed field; Location40415 for
     *                          {@code timeField}/{@code metaField} or an unknown field (they cannot change);
     *                          BadValue (2) for an unknown granularity; InvalidOptions (72) for a finer granularity,
     *                          granularity with custom parameters, only one or unequal custom parameters, or
     *                          parameters below the current ones
     */
    public TimeseriesOptions modifiedBy(BsonValue value, String path) {
        if (!value.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field '" + path + "' is the wrong type '"
                    + value.getBsonType() + "', expected type 'object'");
        }
        BsonDocument spec = value.asDocument();
        for (String field : spec.keySet()) {
            if (!MODIFIABLE.contains(field)) {
                throw new CommandException(ErrorCode.Location40415, "BSON field '" + path + "." + field + "' is an unknown field.");
            }
        }
        if (spec.containsKey("granularity")) {
            Granularity target = granularity(spec.get("granularity"), path + ".granularity");
            if (spec.containsKey("bucketMaxSpanSeconds") || spec.containsKey("bucketRoundingSeconds")) {
                throw new CommandException(ErrorCode.InvalidOptions, "Cannot set '" + path + ".granularity' together with '" + path
                        + ".bucketMaxSpanSeconds' or '" + path + ".bucketRoundingSeconds'");
            }
            if (granularity != null ? target.compareTo(granularity) < 0
                    : target.bucketMaxSpanSeconds() < bucketMaxSpanSeconds || target.bucketRoundingSeconds() < bucketRoundingSeconds) {
                throw new CommandException(ErrorCode.InvalidOptions, "Invalid transition for " + path + ".granularity: from '"
                        + (granularity != null ? granularity.value() : "custom bucketing " + bucketMaxSpanSeconds + "s") + "' to '"
                        + target.value() + "'; it can only become coarser ('seconds' to 'minutes' or 'hours', 'minutes' to 'hours')");
            }
            return withGranularity(target);
        }
        if (spec.isEmpty()) {
            return this;
        }
        if (!spec.containsKey("bucketMaxSpanSeconds") || !spec.containsKey("bucketRoundingSeconds")) {
            throw new CommandException(ErrorCode.InvalidOptions, "'" + path + ".bucketMaxSpanSeconds' and '" + path
                    + ".bucketRoundingSeconds' must be set together");
        }
        int span = seconds(spec.get("bucketMaxSpanSeconds"), path + ".bucketMaxSpanSeconds");
        int rounding = seconds(spec.get("bucketRoundingSeconds"), path + ".bucketRoundingSeconds");
        if (span != rounding) {
            throw new CommandException(ErrorCode.InvalidOptions, "'" + path + ".bucketRoundingSeconds' (" + rounding + ") and '"
                    + path + ".bucketMaxSpanSeconds' (" + span + ") must be equal");
        }
        if (span < bucketMaxSpanSeconds || rounding < bucketRoundingSeconds) {
            throw new CommandException(ErrorCode.InvalidOptions, "Invalid transition for " + path + ".bucketMaxSpanSeconds and "
                    + path + ".bucketRoundingSeconds: they cannot be decreased (now " + bucketMaxSpanSeconds + " and "
                    + bucketRoundingSeconds + ", given " + span + ")");
        }
        return new TimeseriesOptions(timeField, metaField, null, span, rounding);
    }

    /** {@code millis} rounded down to a multiple of {@link #bucketRoundingSeconds}: a bucket's lower time bound. */
    public long roundDown(long millis) {
        long unit = bucketRoundingSeconds * 1000L;
        return Math.floorDiv(millis, unit) * unit;
    }

    /** {@link #bucketMaxSpanSeconds} in milliseconds. */
    public long bucketMaxSpanMillis() {
        return bucketMaxSpanSeconds * 1000L;
    }

    private static String fieldName(BsonValue value, String path) {
        if (!value.isString()) {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field '" + path + "' is the wrong type '" + value.getBsonType()
                    + "', expected type 'string'");
        }
        String name = value.asString().getValue();
        if (name.isEmpty() || name.contains(".") || name.startsWith("$") || name.equals("_id")) {
            throw new CommandException(ErrorCode.InvalidOptions, "'" + path + "' must be a top-level field name other than _id, not '"
                    + name + "'");
        }
        return name;
    }

    private static Granularity granularity(BsonValue value, String path) {
        if (value.isString()) {
            for (Granularity g : Granularity.values()) {
                if (g.value().equals(value.asString().getValue())) {
                    return g;
                }
            }
            throw new CommandException(ErrorCode.BadValue, "Enumeration value '" + value.asString().getValue() + "' for field '" + path
                    + "' is not a valid value.");
        }
        throw new CommandException(ErrorCode.TypeMismatch, "BSON field '" + path + "' is the wrong type '" + value.getBsonType()
                + "', expected type 'string'");
    }

    private static int seconds(BsonValue value, String path) {
        if (!value.isNumber()) {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field '" + path + "' is the wrong type '" + value.getBsonType()
                    + "', expected type 'int'");
        }
        double seconds = value.asNumber().doubleValue();
        if (seconds != Math.rint(seconds) || seconds < 1 || seconds > MAX_BUCKETING_SECONDS) {
            throw new CommandException(ErrorCode.InvalidOptions, "'" + path + "' must be a whole number from 1 to "
                    + MAX_BUCKETING_SECONDS + ", not " + value);
        }
        return (int) seconds;
    }
}
