package dev.shardstore.contracts.sharding;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The equalities a query filter gives on a set of paths, as MongoDB's {@code ShardKeyPattern::extractShardKeyFromQuery}
 * finds them ({@code pathsupport::extractFullEqualityMatches}, then {@code findEqualityElement}), read from the filter
 * document without parsing it into a matcher, so that a routed point read costs one walk of its top-level names.
 *
 * <ul>
 *   <li>An equality is {@code {path: value}} (not a regular expression, which is a pattern match) or an operator
 *       document holding {@code $eq} ({@code {path: {$eq: value, $lt: 9}}} too: its {@code $eq} is an equality AND-ed
 *       with the rest), at the top level or inside {@code $and}, at any depth of {@code $and}. Other logical
 *       operators ({@code $or $nor $not $expr}) give none.</li>
 *   <li>An equality on a path unrelated to every wanted path is ignored; one on a path below a wanted path
 *       ({@code {"a.b": 1}} for {@code a}) means the query has no equality for the whole set (MongoDB: "cannot both be
 *       equal to and be a descendant of"), as does a second equality on a path, on its prefix or on its extension
 *       ("path 'a' is matched twice"), whatever their values.</li>
 *   <li>A wanted path's value is its own equality, or found inside the document an equality on its prefix gives
 *       ({@code {a: {b: 1}}} gives {@code a.b} 1).</li>
 * </ul>
 *
 * Whether a value found may be a shard key value (not an array, ...) is the caller's rule, not this class's.
 */
final class QueryEqualities {
    private static final Set<String> DBREF_FIELDS = Set.of("$ref", "$id", "$db");

    private QueryEqualities() {}

    /**
     * The equality value of each of {@code paths}, in order, null where the query has none; null (not a list) when the
     * query's equalities on these paths conflict or lie below one of them.
     */
    static @Nullable List<@Nullable BsonValue> of(BsonDocument query, List<String> paths) {
        Map<String, BsonValue> equalities = new LinkedHashMap<>();
        if (!collect(query, paths, equalities)) {
            return null;
        }
        List<@Nullable BsonValue> values = new ArrayList<>(paths.size());
        for (String path : paths) {
            values.add(valueFor(equalities, path));
        }
        return values;
    }

    /**
     * Whether {@code value} may be a shard key value taken from a query (MongoDB's {@code isValidShardKeyElementForStorage}):
     * not an array (which matches by element), not a regular expression, not undefined, and not a document holding a
     * {@code $}-prefixed field name other than a DBRef's, at any depth. Null, MinKey and MaxKey may.
     */
    static boolean storable(BsonValue value) {
        return switch (value.getBsonType()) {
            case ARRAY, REGULAR_EXPRESSION, UNDEFINED -> false;
            case DOCUMENT -> storableDocument(value.asDocument());
            default -> true;
        };
    }

    private static boolean storableDocument(BsonDocument document) {
        for (Map.Entry<String, BsonValue> e : document.entrySet()) {
            if (e.getKey().startsWith("$") && !DBREF_FIELDS.contains(e.getKey())) {
                return false;
            }
            if (e.getValue().isDocument() && !storableDocument(e.getValue().asDocument())) {
                return false;
            }
        }
        return true;
    }

    /** Adds the equalities of {@code query} relating to {@code paths}; false on a conflict. */
    private static boolean collect(BsonDocument query, List<String> paths, Map<String, BsonValue> into) {
        for (Map.Entry<String, BsonValue> condition : query.entrySet()) {
            String name = condition.getKey();
            BsonValue value = condition.getValue();
            if (name.equals("$and")) {
                if (value.isArray()) {
                    for (BsonValue clause : value.asArray()) {
                        if (clause.isDocument() && !collect(clause.asDocument(), paths, into)) {
                            return false;
                        }
                    }
                }
                continue;
            }
            if (name.startsWith("$")) {
                continue; // $or, $nor, $expr, $comment, ...: no equality AND-ed with the query
            }
            BsonValue equal = equalityOperand(value);
            if (equal == null || !relates(name, paths)) {
                continue;
            }
            for (String path : paths) {
                if (isBelow(name, path)) {
                    return false;
                }
            }
            for (String seen : into.keySet()) {
                if (seen.equals(name) || isBelow(seen, name) || isBelow(name, seen)) {
                    return false;
                }
            }
            into.put(name, equal);
        }
        return true;
    }

    /** The value {@code {path: value}} is an equality with, or null when it is no equality. */
    private static @Nullable BsonValue equalityOperand(BsonValue value) {
        if (value.isRegularExpression()) {
            return null;
        }
        if (value.isDocument() && !value.asDocument().isEmpty() && value.asDocument().getFirstKey().startsWith("$")) {
            return value.asDocument().get("$eq"); // an operator document; null when it has no $eq
        }
        return value;
    }

    private static boolean relates(String name, List<String> paths) {
        for (String path : paths) {
            if (path.equals(name) || isBelow(path, name) || isBelow(name, path)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code path} is a strict extension of {@code prefix} ({@code a.b} of {@code a}). */
    private static boolean isBelow(String path, String prefix) {
        return path.length() > prefix.length() && path.startsWith(prefix) && path.charAt(prefix.length()) == '.';
    }

    /** {@code path}'s value: its own equality, or the one found inside the document an equality on a prefix gives. */
    private static @Nullable BsonValue valueFor(Map<String, BsonValue> equalities, String path) {
        BsonValue own = equalities.get(path);
        if (own != null) {
            return own;
        }
        for (Map.Entry<String, BsonValue> e : equalities.entrySet()) {
            if (isBelow(path, e.getKey())) {
                return descend(e.getValue(), path.substring(e.getKey().length() + 1));
            }
        }
        return null;
    }

    /** The value at dotted {@code suffix} inside {@code value}; an array on the way is returned as it is (not storable). */
    private static @Nullable BsonValue descend(BsonValue value, String suffix) {
        BsonValue current = value;
        for (String part : suffix.split("\\.", -1)) {
            if (current.isArray()) {
                return current;
            }
            if (!current.isDocument()) {
                return null;
            }
            current = current.asDocument().get(part);
            if (current == null) {
                return null;
            }
        }
        return current;
    }
}
