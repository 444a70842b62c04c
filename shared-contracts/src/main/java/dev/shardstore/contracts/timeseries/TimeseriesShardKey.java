package dev.shardstore.contracts.timeseries;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;

/**
 * The shard key of a sharded time-series collection, translated from the key the user gives on the time-series
 * namespace to the key of its buckets collection, and the index backing it (mongo/src/mongo/db/s/README_timeseries.md "shardCollection
 * command" and its translation table; with {@code {timeField: "t", metaField: "m"}}):
 * <pre>
 * {t: 1}                 → {control.min.t: 1}                 index {control.min.t: 1, control.max.t: 1}
 * {m: 1, t: 1}           → {meta: 1, control.min.t: 1}        index {meta: 1, control.min.t: 1, control.max.t: 1}
 * {m: "hashed"}          → {meta: "hashed"}                   index {meta: "hashed"}
 * {m: "hashed", t: 1}    → {meta: "hashed", control.min.t: 1} index {meta: "hashed", control.min.t: 1, control.max.t: 1}
 * {m.a: 1}               → {meta.a: 1}                        index {meta.a: 1}
 * </pre>
 * A key may name only the meta field, its subfields and the time field; the time field only last and only ascending.
 *
 * @param viewKey    the key as given on the time-series namespace
 * @param bucketsKey the key of the buckets collection, as {@code config.collections} stores it
 * @param index      the index of the buckets collection backing {@code bucketsKey}
 */
public record TimeseriesShardKey(BsonDocument viewKey, ShardKeyPattern bucketsKey, BsonDocument index) {
    /**
     * Checks and translates {@code viewKey} for a collection with {@code options}.
     *
     * @throws CommandException InvalidOptions (72) naming the field: one that is neither the meta field, one of its
     *                          subfields nor the time field; the time field not last or not {@code 1}; and what
     *                          {@link ShardKeyPattern#of} refuses of the translated key (BadValue naming 'key')
     */
    public static TimeseriesShardKey translate(TimeseriesOptions options, BsonDocument viewKey) {
        String meta = options.metaField();
        String time = options.timeField();
        BsonDocument bucketsKey = new BsonDocument();
        BsonDocument index = new BsonDocument();
        int position = 0;
        for (Map.Entry<String, BsonValue> entry : viewKey.entrySet()) {
            String field = entry.getKey();
            position++;
            if (field.equals(time)) {
                if (position != viewKey.size()) {
                    throw invalid(field, "the time field '" + time + "' must be the last field of a time-series shard key");
                }
                if (!(entry.getValue().isNumber() && entry.getValue().asNumber().doubleValue() == 1)) {
                    throw invalid(field, "the time field '" + time + "' can only be an ascending (1) range key, not " + entry.getValue());
                }
                bucketsKey.append("control.min." + time, new BsonInt32(1));
                index.append("control.min." + time, new BsonInt32(1)).append("control.max." + time, new BsonInt32(1));
            } else if (meta != null && (field.equals(meta) || field.startsWith(meta + "."))) {
                String bucketField = "meta" + field.substring(meta.length());
                bucketsKey.append(bucketField, entry.getValue());
                index.append(bucketField, entry.getValue());
            } else {
                throw invalid(field, "only the metaField" + (meta == null ? " (this collection has none)" : " '" + meta + "'")
                        + ", its subfields and the timeField '" + time + "' may be used in a time-series shard key");
            }
        }
        return new TimeseriesShardKey(viewKey, ShardKeyPattern.of(bucketsKey), index);
    }

    private static CommandException invalid(String field, String message) {
        return new CommandException(ErrorCode.InvalidOptions, "key." + field + ": " + message);
    }
}
