package dev.shardstore.engine.timeseries;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Turns a stored bucket ({@link Bucket}'s format) back into its measurements, as MongoDB's
 * {@code $_internalUnpackBucket} does: measurement {@code i} has, in the order of the bucket's {@code data}
 * columns, every field whose column has entry {@code i}, then the meta field with the bucket's {@code meta}.
 * With an include set only those top-level fields are materialized (the others are never read); with an
 * exclude set those are left out. Immutable and thread-safe.
 *
 * @param timeField the collection's time field
 * @param metaField its meta field, or null
 * @param fields    the top-level field names to include ({@code include}) or leave out; null for all
 * @param include   whether {@code fields} lists what is kept (true) or what is dropped (false)
 */
public record BucketUnpacker(String timeField, @Nullable String metaField, @Nullable Set<String> fields, boolean include) {
    public BucketUnpacker {
        fields = fields == null ? null : Set.copyOf(fields);
    }

    /** The measurements of {@code bucket}, in their order in the bucket. */
    public List<BsonDocument> unpack(BsonDocument bucket) {
        BsonDocument data = bucket.getDocument("data", new BsonDocument());
        BsonValue times = data.get(timeField);
        if (times == null || !times.isDocument()) {
            return List.of();
        }
        List<Map.Entry<String, BsonDocument>> columns = new ArrayList<>();
        for (Map.Entry<String, BsonValue> column : data.entrySet()) {
            if (wanted(column.getKey()) && column.getValue().isDocument()) {
                columns.add(Map.entry(column.getKey(), column.getValue().asDocument()));
            }
        }
        BsonValue meta = metaField != null && wanted(metaField) ? bucket.get("meta") : null;
        List<BsonDocument> measurements = new ArrayList<>(times.asDocument().size());
        for (String index : times.asDocument().keySet()) {
            BsonDocument measurement = new BsonDocument();
            for (Map.Entry<String, BsonDocument> column : columns) {
                BsonValue value = column.getValue().get(index);
                if (value != null) {
                    measurement.append(column.getKey(), value);
                }
            }
            if (meta != null) {
                measurement.append(metaField, meta);
            }
            measurements.add(measurement);
        }
        return measurements;
    }

    private boolean wanted(String field) {
        return fields == null || fields.contains(field) == include;
    }
}
