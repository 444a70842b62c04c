package dev.shardstore.shard.plan;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.engine.bounds.IndexBounds;
import dev.shardstore.contracts.keystring.Ordering;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.cursor.MatchingScan;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Paths;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.IndexCatalog;
import dev.shardstore.shard.storage.IndexSpec;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.bson.BsonDocument;
import dev.shardstore.contracts.hash.BsonHasher;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Chooses how a query reads its candidates. In order:
 * <ol>
 *   <li>a {@code hint}: {@code {$natural: 1}} (or {@code -1}) forces a collection scan; an index name or key
 *       pattern forces that index (bounds from the filter, or all of it); {@code _id_} / {@code {_id: 1}} is
 *       the collection's own order; an unknown index is BadValue (2);</li>
 *   <li>an {@code _id} equality reads one row (IDHACK);</li>
 *   <li>an index whose first field the filter bounds — the {@code _id} index (a range of the collection table's primary
 *       key) among them — ranked by (a) the number of leading fields bound to
 *       points, (b) a bounded range on the next field, (c) unique, (d) fewer key fields, (e) created first, the
 *       {@code _id} index first of all —
 *       a fixed heuristic standing in for MongoDB's trial runs of competing plans. A sparse index is not
 *       used for a query a document without the field could match (a {@code null} point); a partial index
 *       only when every top-level condition of its partialFilterExpression appears in the filter as is;</li>
 *   <li>otherwise a collection scan.</li>
 * </ol>
 * A hashed index is bounded by an equality on its hashed field (a point on the value's hash) and by its other
 * fields as usual. An index with a collation stores strings as collation keys: its bounds map the filter's
 * operands the same way, and it takes bounds from conditions on strings only for a query under its collation
 * ({@link #usableBy}); the {@code _id} index (binary) only for a query under the simple collation. A collection with a
 * non-simple default collation also has a collated {@code _id} index, a candidate like the others.
 */
@Component
public class QueryPlanner {
    /** The comparisons whose bounds within one type bracket are exact ({@link #exactRange}). */
    private static final Set<String> RANGE_OPERATORS = Set.of("$gt", "$gte", "$lt", "$lte");
    private static final List<String> ID_FIELDS = List.of("_id");
    private static final Ordering ID_ORDERING = Ordering.fromKeyPattern(Plan.ID_PATTERN);

    private final IndexCatalog indexes;

    public QueryPlanner(IndexCatalog indexes) {
        this.indexes = indexes;
    }

    /**
     * @param filterSpec the filter document as given ({@code null} for none)
     * @param filter     the parsed filter
     * @param hint       the {@code hint} argument, or null
     */
    public Plan plan(CollectionInfo c, @Nullable BsonDocument filterSpec, Filter filter, @Nullable BsonValue hint) {
        BsonDocument given = filterSpec == null ? new BsonDocument() : filterSpec;
        // the _id index here is the collection table's primary key, in binary order
        BsonDocument spec = usableBy(Collation.SIMPLE, filter.collation(), given);
        Optional<byte[]> idKey = MatchingScan.idKey(filter);
        if (Plan.isHint(hint)) {
            if (!hint.isString() && !hint.isDocument()) {
                throw new CommandException(ErrorCode.BadValue, "hint must be a string or an object, not "
                        + hint.getBsonType().name().toLowerCase());
            }
            if (hint.isDocument() && hint.asDocument().containsKey("$natural")) {
                return new Plan.CollScan();
            }
            if (isIdIndex(hint)) {
                return idKey.<Plan>map(Plan.IdLookup::new).orElseGet(() -> new Plan.IdRange(idBounds(spec), exactOnId(given, filter)));
            }
            IndexSpec index = indexes.list(c).stream()
                    .filter(i -> hint.isString() ? i.name().equals(hint.asString().getValue())
                            : hint.isDocument() && i.key().equals(IndexSpec.normalizeKey(hint.asDocument())))
                    .findFirst()
                    .orElseThrow(() -> new CommandException(ErrorCode.BadValue,
                            "error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index"));
            return new Plan.IndexScan(index, bounds(index, given, filter), exactOn(index, given, filter));
        }
        if (idKey.isPresent()) {
            return new Plan.IdLookup(idKey.get());
        }
        IndexBounds byId = idBounds(spec);
        Plan best = byId.bounded() ? new Plan.IdRange(byId, exactOnId(given, filter)) : null;
        for (IndexSpec index : indexes.maintained(c)) {
            IndexBounds bounds = bounds(index, given, filter);
            if (!bounds.bounded() || !usable(index, spec, bounds)) {
                continue;
            }
            Plan.IndexScan candidate = new Plan.IndexScan(index, bounds, exactOn(index, given, filter));
            if (best == null || RANK.compare(candidate, best) > 0) {
                best = candidate;
            }
        }
        return best != null ? best : new Plan.CollScan();
    }

    /**
     * Whether the {@code _id} bounds of {@code filterSpec} hold exactly the documents it matches, so that a scan of them
     * need not check the filter (MongoDB's exact bounds): {@link #exactRange} on {@code _id}. The {@code _id} index is
     * never multikey (an {@code _id} is never an array), so its bounds intersect every comparison.
     */
    static boolean exactOnId(BsonDocument filterSpec, Filter filter) {
        return exactRange("_id", filterSpec, filter);
    }

    /**
     * Whether every entry within {@code index}'s bounds for {@code filterSpec} belongs to a document the filter matches:
     * {@link #exactRange} on an index of one ascending or descending field in binary order, whose path has no array
     * index component. Each entry is a value the field's path reaches (an array's elements each, IndexKeys), read in one
     * statement with its document, and a document one of whose values satisfies every comparison matches the filter.
     * Bounds of an index not known to be multikey intersect the comparisons, so an entry within them satisfies all of
     * them, even if the index became multikey since. A multikey index's bounds come from one comparison only
     * (IndexBounds: two elements may satisfy two comparisons), so there the filter must hold just one. The scan returns
     * each document once. A positional path ({@code a.0}) is left out: the filter also reads a field named {@code 0}
     * there, so the two need not agree.
     */
    static boolean exactOn(IndexSpec index, BsonDocument filterSpec, Filter filter) {
        if (index.key().size() != 1 || index.hashedField() != null || !index.collation().isSimple()) {
            return false;
        }
        String field = index.fields().getFirst();
        return Paths.split(field).stream().noneMatch(Paths::isIndex) && exactRange(field, filterSpec, filter)
                && (!index.multikey() || filterSpec.getDocument(field).size() == 1);
    }

    /**
     * Whether a filter is exactly a range on {@code field}, one that bounds drawn from it hold exactly: the filter's only
     * field is {@code field}, holding only {@code $gt}, {@code $gte}, {@code $lt} and {@code $lte}, all on strings, all
     * on numbers other than NaN, or all on dates, under the simple collation. Such a comparison matches exactly the
     * values of its operand's type bracket on its side of the operand ({@link Filter}: other brackets never match, NaN
     * is neither above nor below a number), which is what the bounds' bracket holds ({@link IndexBounds}: strings and
     * symbols; numbers of every type from -Infinity to +Infinity, NaN sorting below both; dates). Anything else keeps
     * the filter check: a NaN operand, operands of two brackets, other types, other fields or operators, a collation.
     */
    private static boolean exactRange(String field, BsonDocument filterSpec, Filter filter) {
        if (filterSpec.size() != 1 || !filterSpec.containsKey(field) || !filterSpec.get(field).isDocument()
                || !filter.collation().isSimple()) {
            return false;
        }
        BsonDocument conditions = filterSpec.getDocument(field);
        if (conditions.isEmpty() || !RANGE_OPERATORS.containsAll(conditions.keySet())) {
            return false;
        }
        int bracket = BsonOrder.typeRank(conditions.values().iterator().next().getBsonType());
        return conditions.values().stream().allMatch(v -> hasExactBracket(v) && BsonOrder.typeRank(v.getBsonType()) == bracket);
    }

    /** Whether a range on {@code operand} is bounded by its whole type bracket ({@link IndexBounds}'s own brackets). */
    private static boolean hasExactBracket(BsonValue operand) {
        return switch (operand.getBsonType()) {
            case STRING, DATE_TIME, INT32, INT64 -> true;
            case DOUBLE -> !Double.isNaN(operand.asDouble().getValue());
            case DECIMAL128 -> !operand.asDecimal128().getValue().isNaN();
            default -> false;
        };
    }

    /** The bounds of the filter on the {@code _id} index (never multikey: an {@code _id} is not an array). */
    private static IndexBounds idBounds(BsonDocument spec) {
        return IndexBounds.derive(spec, ID_FIELDS, ID_ORDERING, false);
    }

    /**
     * The index's bounds for the filter. For a hashed index, the filter seen by the bounds is rewritten to what
     * the index stores: an equality on the hashed field becomes a point on its hash, any other condition on it
     * (and every {@code $}-operator, which might name it) is dropped. Dropping only widens the bounds, and the
     * scan checks the whole filter on every document it fetches.
     */
    private static IndexBounds bounds(IndexSpec index, BsonDocument given, Filter filter) {
        Collation collation = index.collation();
        BsonDocument spec = usableBy(collation, filter.collation(), given);
        String hashed = index.hashedField();
        BsonDocument seen = spec;
        if (hashed != null) {
            seen = new BsonDocument();
            for (var e : spec.entrySet()) {
                if (!e.getKey().startsWith("$") && !e.getKey().equals(hashed)) {
                    seen.append(e.getKey(), e.getValue());
                }
            }
            BsonValue equal = filter.equalities().get(hashed);
            // a sparse index left out the documents a null equality also matches (missing field)
            // a hash is of the value as the index stores it: a string only under the index's own collation
            if (equal != null && !equal.isArray() && !equal.isRegularExpression() && !(equal.isNull() && index.sparse())
                    && (collation.equals(filter.collation()) || !Collation.holdsString(equal))) {
                seen.append(hashed, new BsonInt64(BsonHasher.hash64(collation.indexKey(equal))));
            }
        }
        return IndexBounds.derive(seen, index.fields(), index.ordering(), index.multikey(), collation::indexKey);
    }

    /**
     * The part of the filter an index whose keys compare strings under {@code index} may take bounds from, for a
     * query under {@code query}: all of it when the collations are the same; otherwise only the top-level conditions
     * that compare no string (MongoDB uses an index whose collation differs from the query's only for predicates
     * that do not compare strings; MongoDB manual, "Collation and Index Use"). Leaving conditions out
     * only widens the bounds: the scan checks the whole filter on every document.
     */
    private static BsonDocument usableBy(Collation index, Collation query, BsonDocument spec) {
        if (index.equals(query)) {
            return spec;
        }
        BsonDocument out = new BsonDocument();
        spec.forEach((field, condition) -> {
            if (!Collation.holdsString(condition)) {
                out.append(field, condition);
            }
        });
        return out;
    }

    /** Higher is better; ties keep the earlier candidate (the {@code _id} index comes first). */
    static final Comparator<Plan> RANK = Comparator
            .comparingInt((Plan p) -> boundsOf(p).pointPrefix())
            .thenComparing(p -> rangeBounded(boundsOf(p)))
            .thenComparing(p -> !(p instanceof Plan.IndexScan s) || s.index().unique())
            .thenComparingInt(p -> p instanceof Plan.IndexScan s ? -s.index().fields().size() : -1);

    private static IndexBounds boundsOf(Plan plan) {
        return switch (plan) {
            case Plan.IndexScan s -> s.bounds();
            case Plan.IdRange r -> r.bounds();
            default -> throw new IllegalArgumentException("not a ranked plan: " + plan);
        };
    }

    private static boolean rangeBounded(IndexBounds b) {
        int next = b.pointPrefix();
        return next < b.fields().size() && !(b.fields().get(next).size() == 1 && b.fields().get(next).getFirst().isAll());
    }

    /** Whether the index holds every document the filter could match. */
    static boolean usable(IndexSpec index, BsonDocument filter, IndexBounds bounds) {
        if (index.sparse() && bounds.fields().getFirst().stream().anyMatch(iv -> iv.contains(org.bson.BsonNull.VALUE))) {
            return false; // a document missing every key field could match, and the index left it out
        }
        if (index.partial() != null) {
            for (var e : index.partial().entrySet()) {
                if (!e.getValue().equals(filter.get(e.getKey()))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean isIdIndex(BsonValue hint) {
        return hint.isString() ? hint.asString().getValue().equals("_id_") : IndexSpec.normalizeKey(hint.asDocument()).equals(Plan.ID_PATTERN);
    }
}
