package dev.shardstore.cluster.crudspec;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The unified test format's "Evaluating Matches" rules (mongodb/specifications,
 * {@code source/unified-test-format/unified-test-format.md}): an expected value against an actual one, where
 * numbers of the types int32, int64 and double are equal by value, a root-level document must not carry extra
 * fields while an embedded one may, arrays match element by element with equal lengths, and the special
 * operators {@code $$exists}, {@code $$type}, {@code $$unsetOrMatches}, {@code $$lte}, {@code $$matchAsDocument},
 * {@code $$matchAsRoot} and {@code $$sessionLsid} (the logical session id of a named session entity) apply. Other
 * special operators ({@code $$matchesEntity}, ...) belong to features this runner does not have and are reported as a
 * mismatch naming them.
 */
final class UnifiedMatcher {
    private static final Map<String, List<BsonType>> TYPE_ALIASES = Map.ofEntries(
            Map.entry("double", List.of(BsonType.DOUBLE)), Map.entry("string", List.of(BsonType.STRING)),
            Map.entry("object", List.of(BsonType.DOCUMENT)), Map.entry("array", List.of(BsonType.ARRAY)),
            Map.entry("binData", List.of(BsonType.BINARY)), Map.entry("undefined", List.of(BsonType.UNDEFINED)),
            Map.entry("objectId", List.of(BsonType.OBJECT_ID)), Map.entry("bool", List.of(BsonType.BOOLEAN)),
            Map.entry("date", List.of(BsonType.DATE_TIME)), Map.entry("null", List.of(BsonType.NULL)),
            Map.entry("regex", List.of(BsonType.REGULAR_EXPRESSION)), Map.entry("int", List.of(BsonType.INT32)),
            Map.entry("timestamp", List.of(BsonType.TIMESTAMP)), Map.entry("long", List.of(BsonType.INT64)),
            Map.entry("decimal", List.of(BsonType.DECIMAL128)), Map.entry("minKey", List.of(BsonType.MIN_KEY)),
            Map.entry("maxKey", List.of(BsonType.MAX_KEY)), Map.entry("javascript", List.of(BsonType.JAVASCRIPT)),
            Map.entry("number", List.of(BsonType.INT32, BsonType.INT64, BsonType.DOUBLE, BsonType.DECIMAL128)));

    private UnifiedMatcher() {
    }

    /**
     * Matches {@code actual} (null when the field is absent) against {@code expected}.
     *
     * @param root whether this is a root-level document, where extra fields are not allowed
     * @return empty when it matches, else the first mismatch as "path: reason"
     */
    static Optional<String> match(BsonValue expected, @Nullable BsonValue actual, boolean root) {
        return match(expected, actual, root, Map.of());
    }

    /**
     * The same, where {@code {$$sessionLsid: "<session id>"}} matches the {@code lsid} document of that session entity.
     *
     * @param sessionLsids each session entity's id to its logical session id ({@code {id: <UUID>}})
     */
    static Optional<String> match(BsonValue expected, @Nullable BsonValue actual, boolean root, Map<String, BsonDocument> sessionLsids) {
        return match("", expected, actual, root, sessionLsids);
    }

    private static Optional<String> match(String path, BsonValue expected, @Nullable BsonValue actual, boolean root,
            Map<String, BsonDocument> lsids) {
        if (expected.isDocument() && expected.asDocument().size() == 1
                && expected.asDocument().getFirstKey().startsWith("$$")) {
            return special(path, expected.asDocument(), actual, root, lsids);
        }
        if (actual == null) {
            return Optional.of(path + ": missing, expected " + expected);
        }
        if (expected.isDocument()) {
            if (!actual.isDocument()) {
                return Optional.of(path + ": expected a document " + expected + ", got " + actual);
            }
            return matchDocument(path, expected.asDocument(), actual.asDocument(), root, lsids);
        }
        if (expected.isArray()) {
            if (!actual.isArray() || actual.asArray().size() != expected.asArray().size()) {
                return Optional.of(path + ": expected " + expected + ", got " + actual);
            }
            for (int i = 0; i < expected.asArray().size(); i++) {
                Optional<String> m = match(path + "." + i, expected.asArray().get(i), actual.asArray().get(i), false, lsids);
                if (m.isPresent()) {
                    return m;
                }
            }
            return Optional.empty();
        }
        if (isPlainNumber(expected) && isPlainNumber(actual)) {
            double e = expected.asNumber().doubleValue();
            double a = actual.asNumber().doubleValue();
            // NaN matches NaN (an _id of NaN is a value like any other); 0.0 matches -0.0
            return e == a || (Double.isNaN(e) && Double.isNaN(a)) ? Optional.empty()
                    : Optional.of(path + ": expected " + expected + ", got " + actual);
        }
        return expected.equals(actual) ? Optional.empty() : Optional.of(path + ": expected " + expected + ", got " + actual);
    }

    private static Optional<String> matchDocument(String path, BsonDocument expected, BsonDocument actual, boolean root,
            Map<String, BsonDocument> lsids) {
        for (Map.Entry<String, BsonValue> e : expected.entrySet()) {
            Optional<String> m = match(path + "." + e.getKey(), e.getValue(), actual.get(e.getKey()), false, lsids);
            if (m.isPresent()) {
                return m;
            }
        }
        if (root) {
            for (String key : actual.keySet()) {
                if (!expected.containsKey(key)) {
                    return Optional.of(path + ": unexpected field '" + key + "' in " + actual);
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> special(String path, BsonDocument operator, @Nullable BsonValue actual, boolean root,
            Map<String, BsonDocument> lsids) {
        String name = operator.getFirstKey();
        BsonValue arg = operator.get(name);
        switch (name) {
            case "$$exists":
                return (actual != null) == arg.asBoolean().getValue() ? Optional.empty()
                        : Optional.of(path + ": $$exists " + arg.asBoolean().getValue() + " but got " + actual);
            case "$$unsetOrMatches":
                return actual == null ? Optional.empty() : match(path, arg, actual, root, lsids);
            case "$$type":
                if (actual == null) {
                    return Optional.of(path + ": missing, expected $$type " + arg);
                }
                List<BsonValue> names = arg.isArray() ? arg.asArray().getValues() : List.of(arg);
                boolean ok = names.stream().anyMatch(n -> TYPE_ALIASES.getOrDefault(n.asString().getValue(), List.of())
                        .contains(actual.getBsonType()));
                return ok ? Optional.empty() : Optional.of(path + ": expected $$type " + arg + ", got " + actual);
            case "$$lte":
                return actual != null && actual.isNumber() && actual.asNumber().doubleValue() <= arg.asNumber().doubleValue()
                        ? Optional.empty() : Optional.of(path + ": expected $$lte " + arg + ", got " + actual);
            case "$$matchAsDocument":
                if (actual == null || !actual.isString()) {
                    return Optional.of(path + ": $$matchAsDocument needs a string, got " + actual);
                }
                return match(path, arg, BsonDocument.parse(actual.asString().getValue()), true, lsids);
            case "$$matchAsRoot":
                return match(path, arg, actual, true, lsids);
            case "$$sessionLsid": {
                BsonDocument lsid = lsids.get(arg.asString().getValue());
                if (lsid == null) {
                    return Optional.of(path + ": $$sessionLsid names no session entity: " + arg);
                }
                return lsid.equals(actual) ? Optional.empty()
                        : Optional.of(path + ": expected the lsid of " + arg.asString().getValue() + " " + lsid + ", got " + actual);
            }
            default:
                return Optional.of(path + ": special operator " + name + " is not supported by this runner");
        }
    }

    private static boolean isPlainNumber(BsonValue value) {
        return value.isInt32() || value.isInt64() || value.isDouble();
    }
}
