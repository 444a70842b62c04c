package dev.shardstore.engine.timeseries;

import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Derives from a filter on measurements a filter on their buckets that every bucket holding a matching measurement
 * satisfies (MongoDB's bucket-level predicates, used both to skip whole buckets before unpacking and, on the
 * router, to target updates and deletes by the buckets' shard key; mongo/src/mongo/db/s/README_timeseries.md "CRUD
 * operations"):
 * <ul>
 *   <li>a condition on the meta field or one of its subfields becomes the same condition on {@code meta}
 *       ({@code meta.<sub>});</li>
 *   <li>a date comparison on the time field {@code t} becomes bounds on {@code control.min.t} and
 *       {@code control.max.t}: {@code $gt/$gte d} → {@code control.max.t $gt/$gte d} and {@code control.min.t $gt
 *       d - bucketMaxSpan}; {@code $lt/$lte d} → {@code control.min.t $lt/$lte d}; equality → both;</li>
 *   <li>{@code $and} combines what its branches give; {@code $or} gives the {@code $or} of its branches when every
 *       branch gives something.</li>
 * </ul>
 * Anything else gives nothing: the result is {@code {}} when nothing narrows the buckets (a router then
 * broadcasts). The measurement filter must still run after unpacking.
 */
public final class BucketPredicates {
    private BucketPredicates() {}

    /** The bucket-level filter implied by {@code filter} (a measurement filter), {@code {}} when none. */
    public static BsonDocument of(TimeseriesOptions options, BsonDocument filter) {
        List<BsonDocument> conjuncts = new ArrayList<>();
        collect(options, filter, conjuncts);
        BsonDocument merged = merge(conjuncts);
        return merged != null ? merged : new BsonDocument("$and", new BsonArray(conjuncts));
    }

    /**
     * The conjuncts as one document ({@code {meta: .., control.min.t: {$gt: .., $lt: ..}}}, which index bounds are
     * derived from), or null when two of them constrain one field with the same operator.
     */
    private static @Nullable BsonDocument merge(List<BsonDocument> conjuncts) {
        BsonDocument merged = new BsonDocument();
        for (BsonDocument conjunct : conjuncts) {
            for (Map.Entry<String, BsonValue> e : conjunct.entrySet()) {
                BsonValue existing = merged.get(e.getKey());
                if (existing == null) {
                    merged.append(e.getKey(), e.getValue() instanceof BsonDocument d ? d.clone() : e.getValue());
                } else if (isOperators(existing) && isOperators(e.getValue())
                        && e.getValue().asDocument().keySet().stream().noneMatch(existing.asDocument()::containsKey)) {
                    existing.asDocument().putAll(e.getValue().asDocument());
                } else {
                    return null;
                }
            }
        }
        return merged;
    }

    private static boolean isOperators(BsonValue value) {
        return value instanceof BsonDocument d && !d.isEmpty() && d.getFirstKey().startsWith("$");
    }

    private static void collect(TimeseriesOptions options, BsonDocument filter, List<BsonDocument> out) {
        for (Map.Entry<String, BsonValue> entry : filter.entrySet()) {
            String field = entry.getKey();
            BsonValue value = entry.getValue();
            if (field.equals("$and") && value.isArray()) {
                for (BsonValue branch : value.asArray()) {
                    if (branch.isDocument()) {
                        collect(options, branch.asDocument(), out);
                    }
                }
            } else if (field.equals("$or") && value.isArray()) {
                or(options, value.asArray(), out);
            } else if (options.metaField() != null && (field.equals(options.metaField()) || field.startsWith(options.metaField() + "."))) {
                out.add(new BsonDocument("meta" + field.substring(options.metaField().length()), value));
            } else if (field.equals(options.timeField())) {
                time(options, value, out);
            }
        }
    }

    private static void or(TimeseriesOptions options, BsonArray branches, List<BsonDocument> out) {
        BsonArray derived = new BsonArray();
        for (BsonValue branch : branches) {
            BsonDocument bucketBranch = branch.isDocument() ? of(options, branch.asDocument()) : new BsonDocument();
            if (bucketBranch.isEmpty()) {
                return;
            }
            derived.add(bucketBranch);
        }
        if (!derived.isEmpty()) {
            out.add(new BsonDocument("$or", derived));
        }
    }

    private static void time(TimeseriesOptions options, BsonValue condition, List<BsonDocument> out) {
        String min = "control.min." + options.timeField();
        String max = "control.max." + options.timeField();
        if (condition.isDateTime()) {
            equal(options, condition.asDateTime(), min, max, out);
            return;
        }
        if (!condition.isDocument()) {
            return;
        }
        for (Map.Entry<String, BsonValue> op : condition.asDocument().entrySet()) {
            if (!op.getValue().isDateTime()) {
                continue;
            }
            BsonDateTime d = op.getValue().asDateTime();
            BsonDateTime earliestMin = new BsonDateTime(d.getValue() - options.bucketMaxSpanMillis());
            switch (op.getKey()) {
                case "$eq" -> equal(options, d, min, max, out);
                case "$gt", "$gte" -> {
                    out.add(new BsonDocument(max, new BsonDocument(op.getKey(), d)));
                    out.add(new BsonDocument(min, new BsonDocument("$gt", earliestMin)));
                }
                case "$lt", "$lte" -> out.add(new BsonDocument(min, new BsonDocument(op.getKey(), d)));
                default -> { }
            }
        }
    }

    private static void equal(TimeseriesOptions options, BsonDateTime d, String min, String max, List<BsonDocument> out) {
        out.add(new BsonDocument(min, new BsonDocument("$lte", d)));
        out.add(new BsonDocument(min, new BsonDocument("$gt", new BsonDateTime(d.getValue() - options.bucketMaxSpanMillis()))));
        out.add(new BsonDocument(max, new BsonDocument("$gte", d)));
    }
}
