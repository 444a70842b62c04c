package dev.shardstore.engine.timeseries;

import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Rewrites reads of a time-series collection into pipelines over its buckets collection (MongoDB's view
 * resolution plus its time-series rewrites; mongo/src/mongo/db/s/README_timeseries.md "Query routing for aggregation"):
 * <pre>[{$match: &lt;bucket-level predicate&gt;}?, {$_internalUnpackBucket: {timeField, metaField?,
 * bucketMaxSpanSeconds, include?}}, &lt;the measurement pipeline&gt;]</pre>
 * The bucket-level {@code $match} ({@link BucketPredicates}) skips whole buckets before anything is unpacked; the
 * unpack stage materializes only the top-level fields the rest needs when that is known (an inclusion projection,
 * a leading {@code $group} or {@code $project} whose field paths are all named), else every field.
 */
public final class TimeseriesRewrite {
    private TimeseriesRewrite() {}

    /**
     * The pipeline answering {@code find(filter).sort(sort).skip(skip).limit(limit)} on the buckets, without the
     * projection (the caller applies the find projection to what it returns, with find's semantics).
     *
     * @param projection the find's projection, used only to decide which fields to unpack; null for none
     * @param limit      0 for no limit
     */
    public static BsonArray find(TimeseriesOptions options, BsonDocument filter, @Nullable BsonDocument sort,
            @Nullable BsonDocument projection, long skip, long limit) {
        Set<String> needed = projection == null ? null : inclusionFields(projection);
        if (needed != null && sort != null) {
            for (String path : sort.keySet()) {
                needed.add(topLevel(path));
            }
        }
        if (needed != null && !addFilterFields(filter, needed)) {
            needed = null;
        }
        BsonArray pipeline = prefix(options, filter, needed);
        if (!filter.isEmpty()) {
            pipeline.add(new BsonDocument("$match", filter));
        }
        if (sort != null && !sort.isEmpty()) {
            pipeline.add(new BsonDocument("$sort", sort));
        }
        if (skip > 0) {
            pipeline.add(new BsonDocument("$skip", new BsonInt64(skip)));
        }
        if (limit > 0) {
            pipeline.add(new BsonDocument("$limit", new BsonInt64(limit)));
        }
        return pipeline;
    }

    /** {@code pipeline} (on the measurements) as a pipeline on the buckets. */
    public static BsonArray aggregate(TimeseriesOptions options, BsonArray pipeline) {
        BsonDocument leadingMatch = new BsonDocument();
        int next = 0;
        while (next < pipeline.size() && pipeline.get(next) instanceof BsonDocument stage && stage.size() == 1
                && stage.get("$match") instanceof BsonDocument match) {
            leadingMatch = leadingMatch.isEmpty() ? match : new BsonDocument("$and", new BsonArray(List.of(leadingMatch, match)));
            next++;
        }
        Set<String> needed = next < pipeline.size() && pipeline.get(next) instanceof BsonDocument stage ? dependencies(stage) : null;
        if (needed != null && !addFilterFields(leadingMatch, needed)) {
            needed = null;
        }
        BsonArray rewritten = prefix(options, leadingMatch, needed);
        rewritten.addAll(pipeline);
        return rewritten;
    }

    /** The bucket-level {@code $match} (when the filter gives one) and the unpack stage. */
    private static BsonArray prefix(TimeseriesOptions options, BsonDocument filter, @Nullable Set<String> needed) {
        BsonArray pipeline = new BsonArray();
        BsonDocument bucketFilter = BucketPredicates.of(options, filter);
        if (!bucketFilter.isEmpty()) {
            pipeline.add(new BsonDocument("$match", bucketFilter));
        }
        BsonDocument unpack = new BsonDocument("timeField", new BsonString(options.timeField()));
        if (options.metaField() != null) {
            unpack.append("metaField", new BsonString(options.metaField()));
        }
        unpack.append("bucketMaxSpanSeconds", new BsonInt32(options.bucketMaxSpanSeconds()));
        if (needed != null) {
            BsonArray include = new BsonArray();
            needed.stream().sorted().forEach(name -> include.add(new BsonString(name)));
            unpack.append("include", include);
        }
        pipeline.add(new BsonDocument("$_internalUnpackBucket", unpack));
        return pipeline;
    }

    /** The top-level fields an inclusion projection of plain paths keeps, or null when it is not one. */
    private static @Nullable Set<String> inclusionFields(BsonDocument projection) {
        Set<String> fields = new HashSet<>();
        fields.add("_id");
        for (Map.Entry<String, BsonValue> entry : projection.entrySet()) {
            BsonValue v = entry.getValue();
            boolean on = v.isBoolean() ? v.asBoolean().getValue() : v.isNumber() && v.asNumber().doubleValue() != 0;
            if (entry.getKey().equals("_id")) {
                if (!on) {
                    fields.remove("_id");
                }
                continue;
            }
            if (!on || !(v.isBoolean() || v.isNumber()) || entry.getKey().contains("$")) {
                return null;
            }
            fields.add(topLevel(entry.getKey()));
        }
        return fields;
    }

    /**
     * The top-level fields a {@code $group} or {@code $project} stage reads ({@code "$a.b"} paths anywhere in it,
     * inclusion entries of a {@code $project}), or null when that is not known (another stage, {@code $$ROOT},
     * {@code $$CURRENT}, an exclusion projection).
     */
    private static @Nullable Set<String> dependencies(BsonDocument stage) {
        Set<String> fields = new HashSet<>();
        if (stage.get("$group") instanceof BsonDocument group) {
            return addPaths(group, fields) ? fields : null;
        }
        if (stage.get("$project") instanceof BsonDocument project) {
            fields.add("_id");
            for (Map.Entry<String, BsonValue> entry : project.entrySet()) {
                BsonValue v = entry.getValue();
                boolean literalFlag = v.isBoolean() || v.isNumber();
                boolean on = v.isBoolean() ? v.asBoolean().getValue() : !v.isNumber() || v.asNumber().doubleValue() != 0;
                if (entry.getKey().equals("_id") && !on) {
                    fields.remove("_id");
                } else if (literalFlag && !on) {
                    return null;
                } else if (literalFlag) {
                    fields.add(topLevel(entry.getKey()));
                } else if (!addPaths(v, fields)) {
                    return null;
                }
            }
            return fields;
        }
        return null;
    }

    /** Adds the top-level fields of the {@code "$path"} strings in {@code value}; false on a {@code $$} variable. */
    private static boolean addPaths(BsonValue value, Set<String> fields) {
        if (value.isString()) {
            String s = value.asString().getValue();
            if (s.startsWith("$$")) {
                return !(s.startsWith("$$ROOT") || s.startsWith("$$CURRENT"));
            }
            if (s.startsWith("$")) {
                fields.add(topLevel(s.substring(1)));
            }
            return true;
        }
        if (value.isDocument()) {
            for (BsonValue v : value.asDocument().values()) {
                if (!addPaths(v, fields)) {
                    return false;
                }
            }
        } else if (value.isArray()) {
            for (BsonValue v : value.asArray()) {
                if (!addPaths(v, fields)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Adds the top-level fields {@code filter} reads; false when that is not known ({@code $expr}, {@code $where}, ...). */
    private static boolean addFilterFields(BsonDocument filter, Set<String> fields) {
        for (Map.Entry<String, BsonValue> entry : filter.entrySet()) {
            String key = entry.getKey();
            if (key.equals("$and") || key.equals("$or") || key.equals("$nor")) {
                if (!entry.getValue().isArray()) {
                    return false;
                }
                for (BsonValue branch : entry.getValue().asArray()) {
                    if (!branch.isDocument() || !addFilterFields(branch.asDocument(), fields)) {
                        return false;
                    }
                }
            } else if (key.startsWith("$")) {
                if (!key.equals("$comment")) {
                    return false;
                }
            } else {
                fields.add(topLevel(key));
            }
        }
        return true;
    }

    private static String topLevel(String path) {
        int dot = path.indexOf('.');
        return dot < 0 ? path : path.substring(0, dot);
    }
}
