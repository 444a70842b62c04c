package dev.shardstore.router.routing;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.hash.BsonHasher;
import dev.shardstore.contracts.keystring.Ordering;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.engine.bounds.IndexBounds;
import dev.shardstore.engine.bounds.Interval;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.engine.timeseries.BucketPredicates;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Shard targeting of a query filter (mongo/src/mongo/db/s/README.md "Routing"; MongoDB's {@code ChunkManager::getShardIdsForQuery}):
 * the chunks whose ranges intersect the filter's bounds on the shard key.
 *
 * <p>The bounds are the index bounds the filter gives over the shard key fields, derived as for an index
 * ({@link IndexBounds}: equality, {@code $in}, {@code $gt $gte $lt $lte}, AND-ed at the top level and in
 * {@code $and}), all ascending and never multikey (a shard key value is never an array). A hashed field can
 * only be targeted through points: each equality or {@code $in} value is hashed with
 * {@link BsonHasher#hash64} and the hashes are that field's points; a range on a hashed field says nothing
 * about where its hashes are, so the field stays unbounded. The bounds become KeyString ranges (the cross
 * product of the leading point fields, then the next field's intervals, later fields unbounded) and each is
 * looked up with {@link RoutingTable#overlapping}. A filter with no usable bounds targets every shard that
 * owns a chunk; a filter whose bounds are empty ({@code {k: {$in: []}}}) targets no chunk.
 *
 * <p>Stateless and thread-safe.
 */
public final class ShardKeyTargeter {
    /**
     * The name the hashed field's hashes go under in the synthetic filter given to {@link IndexBounds}: a
     * {@code $}-prefixed name, which no user filter can use as a field (it would be an unknown operator).
     */
    private static final String HASHES = "$shardKeyHashes";
    /** The logical operators whose clauses may bound the shard key. */
    private static final Set<String> LOGICAL = Set.of("$and", "$or", "$nor");
    /** The key whose equality is the query's {@code _id} equality (MongoDB's {@code kVirtualIdShardKey}). */
    private static final ShardKeyPattern ID_KEY = ShardKeyPattern.of(new BsonDocument("_id", new BsonInt32(1)));

    private ShardKeyTargeter() {}

    /**
     * The chunks of {@code table} a query with {@code filter} must read, in key order (a chunk appears once).
     *
     * @param filter the query filter; null or empty for "everything"
     */
    public static List<Chunk> chunks(RoutingTable table, @Nullable BsonDocument filter) {
        BsonDocument query = filter == null ? new BsonDocument() : filter;
        ShardKeyPattern key = table.shardKey();
        String hashed = key.hashedField();
        BsonDocument bounded = query;
        List<String> fields = key.fields();
        if (hashed != null) {
            fields = fields.stream().map(f -> f.equals(hashed) ? HASHES : f).toList();
            BsonArray hashes = hashedPoints(query, hashed);
            if (hashes != null) {
                bounded = new BsonDocument("$and", new BsonArray(List.of(query, new BsonDocument(HASHES, new BsonDocument("$in", hashes)))));
            }
        }
        IndexBounds bounds = IndexBounds.derive(bounded, fields, Ordering.allAscending(fields.size()), false);
        // the ranges are ascending and disjoint, so first occurrences are in key order (two points may share a chunk)
        Set<Chunk> chunks = new LinkedHashSet<>();
        for (IndexBounds.KeyRange range : bounds.ranges()) {
            chunks.addAll(table.overlapping(range.low(), range.high()));
        }
        return List.copyOf(chunks);
    }

    /**
     * The shards owning the chunks {@link #chunks} targets, sorted; when the bounds target no chunk, the shard
     * of the first chunk (so that the query is still validated and answered by a shard, as mongos does).
     */
    public static List<String> shards(RoutingTable table, @Nullable BsonDocument filter) {
        Chunk pinned = filter == null ? null : pointChunk(table, filter);
        if (pinned != null) {
            return List.of(pinned.shard());
        }
        Set<String> shards = new LinkedHashSet<>();
        chunks(table, filter).forEach(c -> shards.add(c.shard()));
        if (shards.isEmpty()) {
            return List.of(table.chunks().getFirst().shard());
        }
        return shards.stream().sorted().toList();
    }

    /**
     * The shards a statement on {@code routing}'s collection with {@code filter} must reach: {@link #shards(RoutingTable,
     * BsonDocument)} when it is sharded, else the primary shard. On a sharded time-series collection the filter (on
     * measurements) is first turned into its bucket-level predicate ({@link BucketPredicates};
     * mongo/src/mongo/db/s/README_timeseries.md "CRUD operations").
     */
    public static List<String> shards(CollectionRouting routing, @Nullable BsonDocument filter) {
        RoutingTable table = routing.table();
        if (table == null) {
            return List.of(routing.database().primary());
        }
        TimeseriesOptions timeseries = table.collection().timeseriesFields();
        // a time-series filter is on measurements; the chunks are on buckets: target by the bucket-level predicate
        // (meta → meta, time → control.min/max), which is {} (broadcast) when it narrows nothing
        return shards(table, timeseries == null || filter == null ? filter : BucketPredicates.of(timeseries, filter));
    }

    /**
     * As {@link #shards(CollectionRouting, BsonDocument)} for a query under {@code collation}: chunks are ranges in
     * binary (simple collation) order and hashes are of the binary value, so a filter comparing strings under another
     * collation narrows nothing and the query goes to every shard owning a chunk, as mongos broadcasts it
     * (mongo/src/mongo/db/s/README.md "Routing"; MongoDB manual, "Collation": shard key queries with a non-simple collation).
     */
    public static List<String> shards(CollectionRouting routing, @Nullable BsonDocument filter, Collation collation) {
        RoutingTable table = routing.table();
        return table != null ? shards(routing, routable(table, filter, collation)) : shards(routing, filter);
    }

    /**
     * What of {@code filter} chunk ranges, hashes and shard key equalities can route under {@code collation}: the
     * filter itself, or {@code {}} (narrowing nothing) when it compares strings on the shard key under a non-simple
     * collation — the one decision behind the reads' targeting ({@link #shards(CollectionRouting, BsonDocument,
     * Collation)}) and the writes' (a string shard key equality under such a collation pins no shard;
     * mongo/src/mongo/db/s/README.md "Routing"; MongoDB manual, "Collation"). Only conditions that can bound the shard key count (on a key field, a
     * prefix or an extension of one, at the top level or in {@code $and $or $nor}): a string condition on another field
     * leaves a numeric shard key equality targeting its owner. On a time-series collection, whose filter is on
     * measurements and whose key is on buckets, any string condition counts.
     */
    public static BsonDocument routable(RoutingTable table, @Nullable BsonDocument filter, Collation collation) {
        if (filter == null) {
            return new BsonDocument();
        }
        boolean broadcast = table.collection().isTimeseries() ? collation.affects(filter)
                : comparesKeyStrings(filter, table.shardKey().fields(), collation);
        return broadcast ? new BsonDocument() : filter;
    }

    /** Whether a condition of {@code filter} that can bound a field of {@code key} compares a string under {@code collation}. */
    private static boolean comparesKeyStrings(BsonDocument filter, List<String> key, Collation collation) {
        for (Map.Entry<String, BsonValue> condition : filter.entrySet()) {
            String name = condition.getKey();
            if (LOGICAL.contains(name)) {
                if (condition.getValue() instanceof BsonArray clauses && clauses.stream()
                        .anyMatch(c -> c instanceof BsonDocument clause && comparesKeyStrings(clause, key, collation))) {
                    return true;
                }
            } else if (key.stream().anyMatch(field -> field.equals(name) || field.startsWith(name + ".") || name.startsWith(field + "."))
                    && collation.affects(condition.getValue())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The one chunk a filter of plain top-level equalities on every shard key field pins ({@code {_id: k}} on
     * {@code {_id: "hashed"}}: a routed point read), found with one lookup of the key
     * ({@link ShardKeyPattern#extractShardKeyFromQuery}, as mongos' {@code getShardIdsForQuery} first tries) instead of
     * deriving index bounds; null for any other filter, which {@link #chunks} targets. Only where both agree by
     * construction: every top-level name is a field (no {@code $and}, {@code $or}, {@code $expr}, ... that could narrow
     * or widen the key's bounds), each key field's value is a scalar that is its own single point (not a document, which
     * may hold operators, an array or a regular expression, which match by element or pattern, nor null, which also
     * matches a missing field, nor MinKey/MaxKey). The issue-10 profile had bound derivation at 13% of the router's CPU
     * per point read.
     */
    private static @Nullable Chunk pointChunk(RoutingTable table, BsonDocument filter) {
        ShardKeyPattern key = table.shardKey();
        if (filter.size() < key.size()) {
            return null;
        }
        for (String name : filter.keySet()) {
            if (name.startsWith("$")) {
                return null;
            }
        }
        for (String field : key.fields()) {
            BsonValue value = filter.get(field);
            if (value == null || !isPoint(value)) {
                return null;
            }
        }
        // empty only when another top-level name is on a path below or above a key field: the bounds decide then
        return key.extractShardKeyFromQuery(filter).map(k -> table.findChunk(key.encode(k))).orElse(null);
    }

    /**
     * Whether the query has an equality on {@code _id} that names one document per shard under {@code collation} (a
     * single write may then go to every shard): found as the equality of the shard key {@code {_id: 1}} is
     * ({@link ShardKeyPattern#equalitiesFromQuery}), and not a string compared under a non-simple collation, which may
     * equal several {@code _id}s (MongoDB's {@code isExactIdQuery}, which extracts the key {@code {_id: 1}} the same way,
     * with a collator).
     */
    public static boolean hasIdEquality(BsonDocument query, Collation collation) {
        // the equalities of the key {_id: 1} always hold _id
        return ID_KEY.equalitiesFromQuery(query).map(id -> id.get("_id")).filter(id -> !collation.affects(id)).isPresent();
    }

    private static boolean isPoint(BsonValue value) {
        return switch (value.getBsonType()) {
            case DOCUMENT, ARRAY, REGULAR_EXPRESSION, NULL, UNDEFINED, MIN_KEY, MAX_KEY -> false;
            default -> true;
        };
    }

    /** The hashes of the hashed field's points, or null when its bounds are not all points. */
    private static @Nullable BsonArray hashedPoints(BsonDocument filter, String field) {
        List<Interval> intervals = IndexBounds.derive(filter, List.of(field), Ordering.allAscending(1), false).fields().getFirst();
        if (!intervals.stream().allMatch(Interval::isPoint)) {
            return null;
        }
        BsonArray hashes = new BsonArray();
        for (Interval point : intervals) {
            BsonValue value = point.low();
            hashes.add(new BsonInt64(BsonHasher.hash64(value)));
        }
        return hashes;
    }
}
