package dev.shardstore.engine.timeseries;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;

/**
 * One time-series bucket being filled, in MongoDB's uncompressed bucket format (version 1):
 * <pre>{_id: ObjectId (its time part is control.min.&lt;timeField&gt;), control: {version: 1, min: {&lt;field&gt;: v},
 * max: {&lt;field&gt;: v}}, meta?: &lt;metaField value&gt;, data: {&lt;field&gt;: {"0": v, "1": v, ...}}}</pre>
 * {@code control.min.<timeField>} is the lower time bound of the bucket, rounded down to the collection's
 * {@code bucketRoundingSeconds}; every other {@code control.min}/{@code control.max} entry is the exact minimum or
 * maximum of that field over the bucket's measurements in BSON order (whole values; MongoDB compares embedded
 * documents field by field). Measurement {@code i} is {@code data.<field>.<i>} for each field it has; the meta
 * field is not in {@code data}. Mutable and not thread-safe: the shard's bucket catalog owns each instance.
 */
public final class Bucket {
    /** MongoDB's {@code timeseriesBucketMaxCount}: at most this many measurements per bucket. */
    public static final int MAX_COUNT = 1000;
    /** MongoDB's {@code timeseriesBucketMaxSize}: a bucket stops taking measurements at this many bytes of them. */
    public static final int MAX_SIZE_BYTES = 125 * 1024;

    private final TimeseriesOptions options;
    private final BsonDocument doc;
    private int count;
    private long size;

    private Bucket(TimeseriesOptions options, BsonDocument doc, int count, long size) {
        this.options = options;
        this.doc = doc;
        this.count = count;
        this.size = size;
    }

    /**
     * A new, empty bucket for measurements of {@code meta} (null: the collection has no meta field or the measurement
     * lacks it) starting at {@code time} rounded down.
     */
    public static Bucket open(TimeseriesOptions options, @Nullable BsonValue meta, long timeMillis) {
        long min = options.roundDown(timeMillis);
        return empty(options, new BsonObjectId(new ObjectId(new Date(min))), new BsonDateTime(min), meta);
    }

    /** A bucket with no measurements: {@code {_id, control: {version: 1, min: {<t>: minTime}, max: {}}, meta?, data: {}}}. */
    private static Bucket empty(TimeseriesOptions options, BsonValue id, BsonValue minTime, @Nullable BsonValue meta) {
        BsonDocument control = new BsonDocument("version", new BsonInt32(1))
                .append("min", new BsonDocument(options.timeField(), minTime))
                .append("max", new BsonDocument());
        BsonDocument doc = new BsonDocument("_id", id).append("control", control);
        if (meta != null) {
            doc.append("meta", meta);
        }
        doc.append("data", new BsonDocument());
        return new Bucket(options, doc, 0, 0);
    }

    /**
     * The document a router targets an insert of {@code measurement} by (mongo/src/mongo/db/s/README_timeseries.md "CRUD
     * operations"): the new bucket it would open, {@code {_id, control: {min: {<t>: time rounded down}}, meta?}},
     * whose shard key (meta and {@code control.min.<t>}) says which shard owns the measurement's bucket.
     *
     * @throws CommandException BadValue naming the time field when it is missing or not a date
     */
    public static BsonDocument routingDocument(TimeseriesOptions options, BsonDocument measurement) {
        return open(options, options.metaField() == null ? null : measurement.get(options.metaField()), timeOf(options, measurement)).doc;
    }

    /** A stored bucket, to add measurements to (the document is copied). */
    public static Bucket reopen(TimeseriesOptions options, BsonDocument stored) {
        BsonDocument doc = stored.clone();
        BsonValue times = doc.getDocument("data").get(options.timeField());
        int count = times == null ? 0 : times.asDocument().size();
        return new Bucket(options, doc, count, BsonBytes.encode(doc.getDocument("data")).length);
    }

    /**
     * The stored bucket {@code stored} holding exactly {@code measurements} instead of its own (what an update or
     * delete of some of its measurements leaves): same {@code _id}, {@code meta} and rounded
     * {@code control.min.<timeField>} (which its shard key and chunk depend on), {@code data} and every other
     * {@code control.min}/{@code control.max} entry recomputed from the measurements. The caller removes a bucket
     * left with no measurements instead, and only passes measurements of the bucket's meta within its time span.
     */
    public static Bucket repack(TimeseriesOptions options, BsonDocument stored, List<BsonDocument> measurements) {
        Bucket bucket = empty(options, stored(stored, "_id"), stored(stored.getDocument("control").getDocument("min"), options.timeField()),
                stored.get("meta"));
        for (BsonDocument measurement : measurements) {
            bucket.add(measurement, BsonBytes.encode(measurement).length);
        }
        return bucket;
    }

    /** The bucket's {@code _id}. */
    public BsonValue id() {
        return stored(doc, "_id");
    }

    /** A field every bucket has. */
    private static BsonValue stored(BsonDocument bucket, String field) {
        BsonValue value = bucket.get(field);
        if (value == null) {
            throw new IllegalArgumentException("a bucket without '" + field + "': " + bucket.toJson());
        }
        return value;
    }

    /** {@code control.min.<timeField>}, ms since the epoch: the rounded lower time bound. */
    public long minTime() {
        return doc.getDocument("control").getDocument("min").getDateTime(options.timeField()).getValue();
    }

    /** The bucket's meta value, null when it has none. */
    public @Nullable BsonValue meta() {
        return doc.get("meta");
    }

    /** How many measurements it holds. */
    public int count() {
        return count;
    }

    /**
     * Whether a measurement of {@code sizeBytes} at {@code timeMillis} (whose meta is the bucket's) may go into this
     * bucket: within its time span ({@code [control.min, control.min + bucketMaxSpanSeconds)}), below
     * {@link #MAX_COUNT} and, unless the bucket is empty, {@link #MAX_SIZE_BYTES}.
     */
    public boolean fits(long timeMillis, int sizeBytes) {
        return fits(options, minTime(), count, size, timeMillis, sizeBytes);
    }

    /**
     * {@link #fits} for a bucket known only by its lower time bound {@code minTime}, its {@code count} of measurements
     * and their {@code size} in bytes (what the shard's bucket catalog keeps of an open bucket).
     */
    public static boolean fits(TimeseriesOptions options, long minTime, int count, long size, long timeMillis, int sizeBytes) {
        return timeMillis >= minTime && timeMillis < minTime + options.bucketMaxSpanMillis() && count < MAX_COUNT
                && (count == 0 || size + sizeBytes <= MAX_SIZE_BYTES);
    }

    /** The bytes of measurements counted against {@link #MAX_SIZE_BYTES}. */
    public long sizeBytes() {
        return size;
    }

    /**
     * Adds one measurement (its meta field, if any, is left out: the bucket's {@code meta} holds it).
     *
     * @param sizeBytes the measurement's BSON size, counted against {@link #MAX_SIZE_BYTES}
     */
    public void add(BsonDocument measurement, int sizeBytes) {
        String index = Integer.toString(count);
        BsonDocument data = doc.getDocument("data");
        BsonDocument control = doc.getDocument("control");
        for (Map.Entry<String, BsonValue> field : measurement.entrySet()) {
            String name = field.getKey();
            if (name.equals(options.metaField())) {
                continue;
            }
            BsonValue value = field.getValue();
            BsonDocument column = data.containsKey(name) ? data.getDocument(name) : new BsonDocument();
            data.put(name, column.append(index, value));
            if (!name.equals(options.timeField())) {
                extend(control.getDocument("min"), name, value, -1);
            }
            extend(control.getDocument("max"), name, value, 1);
        }
        count++;
        size += sizeBytes;
    }

    /** The bucket as stored (a copy). */
    public BsonDocument toDocument() {
        return doc.clone();
    }

    /**
     * The time of {@code measurement}, ms since the epoch.
     *
     * @throws CommandException BadValue (2) naming the time field when it is missing or not a date
     */
    public static long timeOf(TimeseriesOptions options, BsonDocument measurement) {
        BsonValue time = measurement.get(options.timeField());
        if (time == null || !time.isDateTime()) {
            throw new CommandException(ErrorCode.BadValue, "'" + options.timeField()
                    + "' must be present and contain a valid BSON UTC datetime value");
        }
        return time.asDateTime().getValue();
    }

    /** Keeps in {@code bounds} the smaller ({@code sign} -1) or larger (+1) of its entry and {@code value}. */
    private static void extend(BsonDocument bounds, String name, BsonValue value, int sign) {
        BsonValue current = bounds.get(name);
        if (current == null || Integer.signum(BsonOrder.compare(value, current)) == sign) {
            bounds.put(name, value);
        }
    }
}
