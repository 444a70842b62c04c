package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * A parsed query filter with MongoDB's matching semantics (MongoDB manual, "Query and Projection
 * Operators", "Query on Embedded/Nested Documents", "Query an Array", "Query for Null or Missing Fields").
 * Immutable and thread-safe.
 *
 * <p>Shape: {@code {<path>: <value>, <path>: {<$op>: <argument>, ...}, $and|$or|$nor: [<filter>, ...]}}.
 * Fields are AND-ed. Paths are dotted and traverse arrays implicitly ({@link Paths#resolve}):
 * {@code {a: 5}} matches {@code {a: [1, 5]}}, {@code {"a.b": 1}} matches {@code {a: [{b: 1}]}},
 * {@code {"a.0": 1}} matches {@code {a: [1]}} and {@code {a: [{"0": 1}]}}; an array value matches the
 * whole array or an element that is that array; {@code {a: null}} matches null, missing, and arrays holding
 * null. Operators: {@code $eq $ne $gt $gte $lt $lte $in $nin $exists $not $regex/$options $type $mod $size
 * $elemMatch $all} under a field
 * ({@link FieldOperators}), {@code $and $or $nor $comment $expr} at the top ({@code $expr}: an aggregation
 * expression, MongoDB manual "$expr", only in a command's query, see {@link #parse(BsonDocument, CommandVariables)}).
 * Comparisons hold only within one canonical type bracket ({@link Comparison}).
 */
public final class Filter {
    private static final Filter MATCH_ALL = parse(new BsonDocument());

    private final Matcher matcher;
    private final Map<String, BsonValue> equalities;
    private final Collation collation;

    private Filter(Matcher matcher) {
        this(matcher, Collation.SIMPLE);
    }

    private Filter(Matcher matcher, Collation collation) {
        this.matcher = matcher;
        this.collation = collation;
        Map<String, BsonValue> found = new LinkedHashMap<>();
        matcher.collectEqualities(found);
        this.equalities = Collections.unmodifiableMap(found);
    }

    /**
     * Parses a filter that is not a command's query (a partial index filter, a catalog filter, an internal
     * {@code _id} lookup): {@code $expr} is refused there. {@code null} or {@code {}} matches everything. The
     * argument is not retained.
     *
     * @throws CommandException BadValue (2) naming an unknown operator ({@code "unknown operator: $foo"},
     *     {@code "unknown top level operator: $foo"}) or a malformed argument ({@code "$in needs an array"},
     *     {@code "$and must be a nonempty array"}, {@code "cannot compare to undefined"}, ...);
     *     QueryFeatureNotAllowed (224) for {@code $expr}
     */
    public static Filter parse(BsonDocument filter) {
        if (filter == null) {
            return MATCH_ALL;
        }
        return new Filter(FilterParser.WITHOUT_EXPR.parse(filter.clone()));
    }

    /**
     * Parses a command's query filter (find, count, distinct, {@code $match}, update/delete {@code q},
     * findAndModify {@code query}), whose {@code $expr} conditions evaluate with the command's {@code variables}
     * ({@code $$NOW}, {@code let}) and whose strings compare under the variables' collation
     * ({@link CommandVariables#collation()}, simple unless the command gave one). {@code null} or {@code {}} matches
     * everything. The argument is not retained.
     *
     * @throws CommandException as {@link #parse(BsonDocument)}, {@code $expr} accepted at the top level and in
     *     {@code $and $or $nor} (BadValue (2) inside {@code $elemMatch}); the expressions' parse errors
     */
    public static Filter parse(BsonDocument filter, CommandVariables variables) {
        return parse(filter, variables, variables.collation());
    }

    /**
     * As {@link #parse(BsonDocument, CommandVariables)}, comparing strings with the command's {@code collation}
     * ({@code $eq $ne $gt $gte $lt $lte $in $nin $all $elemMatch}, and {@code $expr}'s comparisons; not {@code $regex}),
     * as MongoDB does.
     */
    public static Filter parse(BsonDocument filter, CommandVariables variables, Collation collation) {
        if (filter == null) {
            return MATCH_ALL;
        }
        return new Filter(FilterParser.forCommand(variables, collation).parse(filter.clone()), collation);
    }

    /**
     * The filter matching what both match; its {@link #equalities()} are {@code first}'s, then {@code second}'s
     * (findAndModify re-checks a query on one locked {@code _id} with it); its {@link #collation()} is {@code first}'s.
     */
    public static Filter and(Filter first, Filter second) {
        return new Filter(new Logical.AllOf(List.of(first.matcher, second.matcher)), first.collation);
    }

    /**
     * The collation its string comparisons use: a planner may use an index's string bounds or an {@code _id} lookup
     * only when they order strings the same way (MongoDB manual, "Collation", "Collation and Index Use").
     */
    public Collation collation() {
        return collation;
    }

    /** The filter that matches every document ({@code {}}). */
    public static Filter matchAll() {
        return MATCH_ALL;
    }

    /** Whether this filter matches every document (it is {@code {}}, or only a {@code $comment}). */
    public boolean isMatchAll() {
        return matcher.equals(new Logical.AllOf(List.of()));
    }

    /** Whether {@code doc} satisfies the filter. */
    public boolean matches(BsonDocument doc) {
        return matcher.matches(doc);
    }

    /**
     * The position, in the first array the query traversed, of the element by which {@code doc} matched (MongoDB
     * manual, "$ (update)": "the first element that matches the query document"), as the positional {@code $}
     * needs it; empty when {@code doc} does not match or matched without going through an array element.
     */
    public OptionalInt matchedPosition(BsonDocument doc) {
        int position = matcher.matchPosition(doc);
        return position >= 0 ? OptionalInt.of(position) : OptionalInt.empty();
    }

    /**
     * The AND-ed equality conditions of the filter: {@code {a: v}} and {@code {a: {$eq: v}}} at the top level
     * or inside {@code $and}, by dotted path, in filter order (the first value wins when a path repeats).
     * Seeds upserts ({@link Update#seedFromEqualities}) and plans {@code _id} lookups. Unmodifiable. The shard key a
     * query pins is not read from here but by {@link dev.shardstore.contracts.sharding.ShardKeyPattern#extractShardKeyFromQuery}
     * from the filter document, with MongoDB's stricter rules for a key (a path matched twice pins nothing; no array).
     */
    public Map<String, BsonValue> equalities() {
        return equalities;
    }
}
