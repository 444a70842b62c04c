package dev.shardstore.contracts.bson;

import com.ibm.icu.text.Collator;
import com.ibm.icu.text.RuleBasedCollator;
import com.ibm.icu.util.ULocale;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * A collation as MongoDB defines it (MongoDB manual, "Collation"): the locale-aware string comparison that
 * query comparisons, sorts, {@code distinct} and {@code $group} keys apply to string values (also strings nested
 * in arrays and documents, see {@link BsonOrder#compare(BsonValue, BsonValue, Collation)}). {@code {locale:
 * "simple"}} ({@link #SIMPLE}) is MongoDB's binary comparison by code point.
 *
 * <p>Spec shape: {@code {locale: <string>, caseLevel: <bool>, caseFirst: "upper"|"lower"|"off", strength: 1..5,
 * numericOrdering: <bool>, alternate: "non-ignorable"|"shifted", maxVariable: "punct"|"space", normalization:
 * <bool>, backwards: <bool>, version: <string>}}, only {@code locale} required. Fields left out take the locale's
 * ICU defaults, which {@link #toDocument()} spells out as MongoDB does in {@code listCollections}/{@code
 * listIndexes}.
 *
 * <p>Immutable and thread-safe: the wrapped ICU {@link Collator} is frozen. Equality is by the resolved spec.
 *
 * @param spec the resolved spec ({@link #toDocument()}'s shape); {@code {locale: "simple"}} for the simple collation
 * @param collator the frozen ICU collator; {@code null} for the simple collation
 */
public record Collation(BsonDocument spec, @Nullable Collator collator) {
    /** The locale that means binary comparison. */
    public static final String SIMPLE_LOCALE = "simple";
    /** MongoDB's simple collation: strings compare by code point, as {@link BsonOrder#compareStrings}. */
    public static final Collation SIMPLE = new Collation(new BsonDocument("locale", new BsonString(SIMPLE_LOCALE)), null);
    /** The ICU collation version MongoDB reports in a resolved spec. */
    private static final String VERSION = "57.1";

    private static final Set<String> FIELDS = Set.of("locale", "caseLevel", "caseFirst", "strength", "numericOrdering",
            "alternate", "maxVariable", "normalization", "backwards", "version");
    private static final Set<String> LOCALES = Arrays.stream(Collator.getAvailableULocales())
            .map(ULocale::getBaseName).collect(Collectors.toUnmodifiableSet());
    private static final Map<Integer, Integer> STRENGTHS = Map.of(1, Collator.PRIMARY, 2, Collator.SECONDARY,
            3, Collator.TERTIARY, 4, Collator.QUATERNARY, 5, Collator.IDENTICAL);

    /** @throws IllegalArgumentException unless the spec and collator agree on being simple, and a collator is frozen */
    public Collation {
        spec = spec.clone();
        boolean simple = spec.getString("locale").getValue().equals(SIMPLE_LOCALE);
        if (simple != (collator == null) || (collator != null && !collator.isFrozen())) {
            throw new IllegalArgumentException("a simple collation has no collator; any other a frozen one: " + spec.toJson());
        }
    }

    /**
     * Parses a command's {@code collation} field, validating it as MongoDB's IDL and {@code CollatorFactoryICU} do.
     *
     * @param path  the field as errors name it, e.g. {@code find.collation}
     * @param value the field's value; {@code null} (absent) is the simple collation
     * @return the collation; {@link #SIMPLE} for {@code {locale: "simple"}}
     * @throws CommandException TypeMismatch (14) when it or a field has the wrong type; Location40415 for an unknown
     *     field; Location40414 when {@code locale} is missing; BadValue (2) for an unknown locale, a value out of
     *     its range (strength 1 to 5, caseFirst, alternate, maxVariable), or {@code "simple"} with other fields
     */
    public static Collation parse(String path, @Nullable BsonValue value) {
        if (value == null) {
            return SIMPLE;
        }
        if (!value.isDocument()) {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field '" + path + "' is the wrong type '"
                    + value.getBsonType() + "', expected type 'object'");
        }
        BsonDocument spec = value.asDocument();
        for (String field : spec.keySet()) {
            if (!FIELDS.contains(field)) {
                throw new CommandException(ErrorCode.Location40415, "BSON field '" + path + "." + field + "' is an unknown field.");
            }
        }
        String locale = string(path, spec, "locale", null);
        if (locale == null) {
            throw new CommandException(ErrorCode.Location40414, "BSON field '" + path + ".locale' is missing but a required field");
        }
        if (locale.equals(SIMPLE_LOCALE)) {
            if (spec.keySet().stream().anyMatch(field -> !field.equals("locale") && !field.equals("version"))) {
                throw new CommandException(ErrorCode.BadValue, path + ": If locale is 'simple', then the collation must not contain"
                        + " any other fields: " + spec.toJson());
            }
            return SIMPLE;
        }
        return icu(path, spec, locale);
    }

    /** Equal when the resolved specs are: two collators built from one spec compare alike. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Collation c && spec.equals(c.spec);
    }

    @Override
    public int hashCode() {
        return spec.hashCode();
    }

    /**
     * A listIndexes entry made fit to re-create the index on another collection (a migration recipient, a {@code $out}
     * target): listIndexes shows a collation only when it is not simple, and an index created without one takes the
     * collection's default, so an entry without {@code collation} gets {@code {locale: "simple"}} spelled out. A copy
     * without MongoDB's {@code v} and {@code ns} fields.
     */
    public static BsonDocument indexSpecToCopy(BsonDocument listEntry) {
        BsonDocument copy = listEntry.clone();
        copy.remove("v");
        copy.remove("ns");
        if (!copy.containsKey("collation")) {
            copy.append("collation", SIMPLE.toDocument());
        }
        return copy;
    }

    /** Whether this is the simple (binary) collation. */
    public boolean isSimple() {
        return collator == null;
    }

    /** Compares two strings under this collation: negative, zero or positive as {@code a} sorts before, with or after {@code b}. */
    public int compareStrings(String a, String b) {
        return collator == null ? BsonOrder.compareStrings(a, b) : collator.compare(a, b);
    }

    /**
     * Whether comparing {@code value} under this collation can differ from comparing it in binary order: this is not
     * the simple collation and {@code value} is, or holds at any depth, a String or Symbol. Binary-ordered structures
     * (index keys, {@code _id} lookups, chunk ranges) serve such a value only under the simple collation.
     */
    public boolean affects(BsonValue value) {
        return collator != null && holdsString(value);
    }

    /**
     * The value as an index with this collation stores it (MongoDB's KeyString with a collator): every String or
     * Symbol, at any depth of arrays and document values (not field names), replaced by a String that orders in
     * binary as the original orders under this collation: each byte {@code b} of the ICU collation key becomes the
     * code point {@code b + 1}, so the KeyString's UTF-8 bytes keep the key's byte order. Strings equal under the
     * collation get identical keys, so a unique index refuses them as duplicates. Other values, and every value
     * under the simple collation, are returned as they are.
     */
    public BsonValue indexKey(BsonValue value) {
        Collator icu = collator;
        if (icu == null || !holdsString(value)) {
            return value;
        }
        return switch (value.getBsonType()) {
            case STRING -> collationKey(icu, value.asString().getValue());
            case SYMBOL -> collationKey(icu, value.asSymbol().getSymbol());
            case DOCUMENT -> {
                BsonDocument out = new BsonDocument();
                value.asDocument().forEach((field, v) -> out.append(field, indexKey(v)));
                yield out;
            }
            case ARRAY -> new BsonArray(value.asArray().stream().map(this::indexKey).toList());
            default -> value;
        };
    }

    private static BsonString collationKey(Collator icu, String s) {
        byte[] key = icu.getCollationKey(s).toByteArray();
        StringBuilder out = new StringBuilder(key.length);
        for (byte b : key) {
            out.append((char) ((b & 0xFF) + 1));
        }
        return new BsonString(out.toString());
    }

    /** Whether {@code value} is, or holds at any depth, a String or Symbol: the values a collation compares. */
    public static boolean holdsString(BsonValue value) {
        return switch (value.getBsonType()) {
            case STRING, SYMBOL -> true;
            case DOCUMENT -> value.asDocument().values().stream().anyMatch(Collation::holdsString);
            case ARRAY -> value.asArray().stream().anyMatch(Collation::holdsString);
            default -> false;
        };
    }

    /** The resolved spec, every field spelled out ({@code {locale: "simple"}} alone for the simple collation). A copy. */
    public BsonDocument toDocument() {
        return spec.clone();
    }

    private static Collation icu(String path, BsonDocument spec, String locale) {
        ULocale uLocale = new ULocale(locale);
        if (locale.isEmpty() || !LOCALES.contains(uLocale.getBaseName()) && !locale.equals("root")) {
            throw new CommandException(ErrorCode.BadValue, path + ": Field 'locale' is invalid with value: " + locale);
        }
        RuleBasedCollator collator = (RuleBasedCollator) Collator.getInstance(uLocale);
        Integer strength = strength(path, spec);
        if (strength != null) {
            // strength() admits 1 to 5 only, every one a key of STRENGTHS
            collator.setStrength(Objects.requireNonNull(STRENGTHS.get(strength)));
        }
        Boolean caseLevel = bool(path, spec, "caseLevel");
        if (caseLevel != null) {
            collator.setCaseLevel(caseLevel);
        }
        String caseFirst = choice(path, spec, "caseFirst", "'upper', 'lower', or 'off'", "upper", "lower", "off");
        if (caseFirst != null) {
            collator.setUpperCaseFirst(caseFirst.equals("upper"));
            collator.setLowerCaseFirst(caseFirst.equals("lower"));
        }
        Boolean numeric = bool(path, spec, "numericOrdering");
        if (numeric != null) {
            collator.setNumericCollation(numeric);
        }
        String alternate = choice(path, spec, "alternate", "'non-ignorable' or 'shifted'", "non-ignorable", "shifted");
        if (alternate != null) {
            collator.setAlternateHandlingShifted(alternate.equals("shifted"));
        }
        String maxVariable = choice(path, spec, "maxVariable", "'punct' or 'space'", "punct", "space");
        if (maxVariable != null) {
            collator.setMaxVariable(maxVariable.equals("space") ? Collator.ReorderCodes.SPACE : Collator.ReorderCodes.PUNCTUATION);
        }
        Boolean normalization = bool(path, spec, "normalization");
        if (normalization != null) {
            collator.setDecomposition(normalization ? Collator.CANONICAL_DECOMPOSITION : Collator.NO_DECOMPOSITION);
        }
        Boolean backwards = bool(path, spec, "backwards");
        if (backwards != null) {
            collator.setFrenchCollation(backwards);
        }
        string(path, spec, "version", null);
        collator.freeze();
        return new Collation(resolved(locale, collator), collator);
    }

    /** The spec MongoDB reports: every attribute as the collator resolved it. */
    private static BsonDocument resolved(String locale, RuleBasedCollator collator) {
        int strength = STRENGTHS.entrySet().stream().filter(e -> e.getValue() == collator.getStrength())
                .mapToInt(Map.Entry::getKey).findFirst().orElseThrow();
        return new BsonDocument("locale", new BsonString(locale))
                .append("caseLevel", BsonBoolean.valueOf(collator.isCaseLevel()))
                .append("caseFirst", new BsonString(collator.isUpperCaseFirst() ? "upper" : collator.isLowerCaseFirst() ? "lower" : "off"))
                .append("strength", new BsonInt32(strength))
                .append("numericOrdering", BsonBoolean.valueOf(collator.getNumericCollation()))
                .append("alternate", new BsonString(collator.isAlternateHandlingShifted() ? "shifted" : "non-ignorable"))
                .append("maxVariable", new BsonString(collator.getMaxVariable() == Collator.ReorderCodes.SPACE ? "space" : "punct"))
                .append("normalization", BsonBoolean.valueOf(collator.getDecomposition() == Collator.CANONICAL_DECOMPOSITION))
                .append("backwards", BsonBoolean.valueOf(collator.isFrenchCollation()))
                .append("version", new BsonString(VERSION));
    }

    private static @Nullable Integer strength(String path, BsonDocument spec) {
        BsonValue value = spec.get("strength");
        if (value == null) {
            return null;
        }
        if (!value.isNumber()) {
            throw wrongType(path, "strength", value, "'[long, int, decimal, double]'");
        }
        double d = value.asNumber().doubleValue();
        if (d != Math.rint(d) || d < 1 || d > 5) {
            throw new CommandException(ErrorCode.BadValue, path + ": Field 'strength' must be an integer 1 through 5. Got: " + d);
        }
        return (int) d;
    }

    private static @Nullable Boolean bool(String path, BsonDocument spec, String field) {
        BsonValue value = spec.get(field);
        if (value == null) {
            return null;
        }
        if (!value.isBoolean()) {
            throw wrongType(path, field, value, "'bool'");
        }
        return value.asBoolean().getValue();
    }

    private static @Nullable String choice(String path, BsonDocument spec, String field, String allowed, String... values) {
        String value = string(path, spec, field, null);
        if (value != null && !Arrays.asList(values).contains(value)) {
            throw new CommandException(ErrorCode.BadValue, path + ": Field '" + field + "' must be " + allowed + ". Got: " + value);
        }
        return value;
    }

    private static @Nullable String string(String path, BsonDocument spec, String field, @Nullable String absent) {
        BsonValue value = spec.get(field);
        if (value == null) {
            return absent;
        }
        if (!value.isString()) {
            throw wrongType(path, field, value, "'string'");
        }
        return value.asString().getValue();
    }

    private static CommandException wrongType(String path, String field, BsonValue value, String expected) {
        return new CommandException(ErrorCode.TypeMismatch, "BSON field '" + path + "." + field + "' is the wrong type '"
                + value.getBsonType() + "', expected type " + expected);
    }
}
