package dev.shardstore.engine.query;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * An update's {@code arrayFilters} (MongoDB manual, "$[<identifier>]"): {@code [{<id>: <condition>, "<id>.<path>":
 * <condition>, ...}, ...]}, one filter per identifier. An array element qualifies for {@code $[<id>]} when the
 * filter matches the document {@code {<id>: <element>}}, so {@code {x: {$gte: 100}}} tests the element itself and
 * {@code {"x.grade": 85}} a field of it.
 *
 * <p>Errors: TypeMismatch (14) "arrayFilters entries must be objects"; FailedToParse (9) "Cannot use an expression
 * without a top-level field name in arrayFilters", "Expected a single top-level field name", "Found multiple
 * array filters with the same top-level field name x", "The array filter for identifier 'x' was not used in the
 * update"; BadValue (2) "The top-level field name must be an alphanumeric string beginning with a lowercase
 * letter", "No array filter found for identifier 'x' in path 'a.$[x]'"; the filters' own errors.
 */
final class ArrayFilters {
    private static final Pattern IDENTIFIER = Pattern.compile("[a-z][a-zA-Z0-9]*");
    static final ArrayFilters NONE = new ArrayFilters(Map.of());

    private final Map<String, Matcher> byIdentifier;
    private final Set<String> used = new HashSet<>();

    private ArrayFilters(Map<String, Matcher> byIdentifier) {
        this.byIdentifier = byIdentifier;
    }

    /**
     * Parses the filters, whose string comparisons use the statement's {@code collation} (MongoDB parses them with the
     * update's collator).
     *
     * @throws CommandException as listed on the class
     */
    static ArrayFilters parse(List<? extends BsonValue> filters, Collation collation) {
        Map<String, Matcher> byIdentifier = new LinkedHashMap<>();
        FilterParser parser = FilterParser.withoutExpr(collation);
        for (BsonValue entry : filters) {
            if (!entry.isDocument()) {
                throw new CommandException(ErrorCode.TypeMismatch, "arrayFilters entries must be objects");
            }
            BsonDocument filter = entry.asDocument();
            String identifier = identifierOf(filter);
            if (byIdentifier.put(identifier, parser.parse(filter.clone())) != null) {
                throw new CommandException(ErrorCode.FailedToParse,
                        "Found multiple array filters with the same top-level field name " + identifier);
            }
        }
        return new ArrayFilters(byIdentifier);
    }

    private static String identifierOf(BsonDocument filter) {
        String identifier = null;
        for (String key : filter.keySet()) {
            if (key.startsWith("$")) {
                throw new CommandException(ErrorCode.FailedToParse,
                        "Cannot use an expression without a top-level field name in arrayFilters");
            }
            String top = key.split("\\.", -1)[0];
            if (identifier != null && !identifier.equals(top)) {
                throw new CommandException(ErrorCode.FailedToParse, "Error parsing array filter :: caused by :: Expected a"
                        + " single top-level field name, found '" + identifier + "' and '" + top + "'");
            }
            identifier = top;
        }
        if (identifier == null) {
            throw new CommandException(ErrorCode.FailedToParse,
                    "Cannot use an expression without a top-level field name in arrayFilters");
        }
        if (!IDENTIFIER.matcher(identifier).matches()) {
            throw new CommandException(ErrorCode.BadValue, "Error parsing array filter :: caused by :: The top-level field"
                    + " name must be an alphanumeric string beginning with a lowercase letter, found '" + identifier + "'");
        }
        return identifier;
    }

    /**
     * Notes that {@code path} uses {@code identifier}.
     *
     * @throws CommandException BadValue when there is no filter for it
     */
    void use(String identifier, String path) {
        if (!byIdentifier.containsKey(identifier)) {
            throw new CommandException(ErrorCode.BadValue,
                    "No array filter found for identifier '" + identifier + "' in path '" + path + "'");
        }
        used.add(identifier);
    }

    /**
     * Checks, once the update is parsed, that every filter was used.
     *
     * @throws CommandException FailedToParse naming the first unused identifier
     */
    void requireAllUsed(BsonDocument update) {
        for (String identifier : byIdentifier.keySet()) {
            if (!used.contains(identifier)) {
                throw new CommandException(ErrorCode.FailedToParse, "The array filter for identifier '" + identifier
                        + "' was not used in the update " + update.toJson());
            }
        }
    }

    /** Whether {@code element} qualifies for {@code $[identifier]}. */
    boolean matches(String identifier, BsonValue element) {
        Matcher filter = byIdentifier.get(identifier);
        if (filter == null) { // parsing the update checked that each identifier it uses has a filter
            throw new IllegalArgumentException("no array filter for identifier '" + identifier + "'");
        }
        return filter.matches(new BsonDocument(identifier, element));
    }
}
