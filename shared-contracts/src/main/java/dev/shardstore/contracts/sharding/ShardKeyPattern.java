package dev.shardstore.contracts.sharding;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.hash.BsonHasher;
import dev.shardstore.contracts.keystring.KeyString;
import dev.shardstore.contracts.keystring.Ordering;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * A shard key pattern such as {@code {country: 1, name: 1}}, {@code {_id: "hashed"}} or {@code {region: 1,
 * _id: "hashed"}}: one or more (possibly dotted) fields, each {@code 1} (ranged) or {@code "hashed"}, at most
 * one hashed (MongoDB's {@code ShardKeyPattern} rules; descending fields are not allowed in a shard key).
 *
 * <p>A document's shard key is its values for these fields in pattern order, a missing field counting as
 * null (MongoDB 4.4+), the hashed field replaced by {@link BsonHasher#hash64} of its value. Keys and chunk
 * bounds are compared as their {@link KeyString} encodings, all components ascending, so a chunk range
 * {@code [min, max)} is a byte range.
 *
 * @param pattern the key pattern document (copied)
 */
public record ShardKeyPattern(BsonDocument pattern) {
    private static final String HASHED = "hashed";

    /**
     * @throws CommandException BadValue naming {@code key} when the pattern is empty, has a value other than
     *                          1 or "hashed", more than one hashed field, or a field path with an empty or `$`-prefixed part
     */
    public ShardKeyPattern {
        Objects.requireNonNull(pattern, "pattern");
        if (pattern.isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "shard key pattern 'key' must not be empty");
        }
        int hashed = 0;
        for (var e : pattern.entrySet()) {
            String field = e.getKey();
            if (!isValidPath(field)) {
                throw new CommandException(ErrorCode.BadValue, "shard key field name '" + field + "' in 'key' is invalid");
            }
            BsonValue v = e.getValue();
            if (v.isString() && v.asString().getValue().equals(HASHED)) {
                hashed++;
            } else if (!(v.isNumber() && v.asNumber().doubleValue() == 1.0)) {
                throw new CommandException(ErrorCode.BadValue, "shard key field '" + field
                        + "' in 'key' must be 1 or \"hashed\", was " + v);
            }
        }
        if (hashed > 1) {
            throw new CommandException(ErrorCode.BadValue, "shard key 'key' may have at most one hashed field: " + pattern.toJson());
        }
        pattern = pattern.clone();
    }

    /** Parses {@code key}; see the constructor for the errors. */
    public static ShardKeyPattern of(BsonDocument key) {
        return new ShardKeyPattern(key);
    }

    @Override
    public BsonDocument pattern() {
        return pattern.clone();
    }

    /** The key fields in pattern order. */
    public List<String> fields() {
        return List.copyOf(pattern.keySet());
    }

    public int size() {
        return pattern.size();
    }

    /** The hashed field, or null for a purely ranged key. */
    public @Nullable String hashedField() {
        for (var e : pattern.entrySet()) {
            if (e.getValue().isString()) {
                return e.getKey();
            }
        }
        return null;
    }

    public boolean isHashed() {
        return hashedField() != null;
    }

    /** Whether the first field is the hashed one ({@code {_id: "hashed"}}, {@code {h: "hashed", b: 1}}). */
    public boolean isHashedPrefix() {
        return pattern.values().iterator().next().isString();
    }

    /**
     * Whether a unique index on {@code indexKey} can be enforced cluster-wide under this shard key (MongoDB's
     * {@code ShardKeyPattern::isUniqueIndexCompatible}): true when the index's first field is {@code _id} (the
     * {@code _id} index and its extensions are taken as unique by the application, as MongoDB does) or when this
     * pattern's field names are, in order, the first field names of the index — whatever their directions or
     * hashing, since equal values of the key fields put two documents on the same shard. So {@code {_id: "hashed"}}
     * does not back a unique {@code {x: 1}}, while {@code {x: "hashed"}} backs a unique {@code {x: 1, y: 1}}.
     * MongoDB manual, "Sharding": unique indexes on sharded collections.
     *
     * @param indexKey a unique index's key pattern, e.g. {@code {x: 1, y: -1}}
     */
    public boolean isUniqueIndexCompatible(BsonDocument indexKey) {
        List<String> indexFields = List.copyOf(indexKey.keySet());
        if (!indexFields.isEmpty() && indexFields.get(0).equals("_id")) {
            return true;
        }
        return indexFields.size() >= size() && indexFields.subList(0, size()).equals(fields());
    }

    /** The ascending ordering of the key's components. */
    public Ordering ordering() {
        return Ordering.allAscending(pattern.size());
    }

    /**
     * The shard key of {@code document}: {@code {field: value}} in pattern order, missing fields as null, the
     * hashed field's value hashed.
     *
     * @throws CommandException ShardKeyNotFound naming the field when a key value is an array (MongoDB forbids
     *                          arrays in shard keys) or a path goes through an array
     */
    public BsonDocument extractKey(BsonDocument document) {
        BsonDocument key = new BsonDocument();
        for (var e : pattern.entrySet()) {
            BsonValue value = valueAt(document, e.getKey());
            key.append(e.getKey(), e.getValue().isString() ? new BsonInt64(BsonHasher.hash64(value)) : value);
        }
        return key;
    }

    /**
     * MongoDB's {@code documentKey} of {@code document}: the shard key fields' values in pattern order, unhashed
     * (a hashed field keeps its value), dotted paths as field names and missing fields as null, then {@code _id}
     * unless the pattern holds it. Oplog entries carry it as {@code o2} so that a reader can tell a document's
     * chunk without the document.
     *
     * @throws CommandException ShardKeyNotFound naming the field when a key value is an array or a path goes
     *                          through an array
     */
    public BsonDocument documentKey(BsonDocument document) {
        BsonDocument key = new BsonDocument();
        for (String field : pattern.keySet()) {
            key.append(field, valueAt(document, field));
        }
        if (!key.containsKey("_id")) {
            BsonValue id = document.get("_id");
            key.append("_id", id == null ? BsonNull.VALUE : id);
        }
        return key;
    }

    /** The KeyString of {@code document}'s shard key (see {@link #extractKey}). */
    public byte[] keyOf(BsonDocument document) {
        // the values straight into the KeyString, without the key document and encode's check of its shape: a shard
        // checks the owner of every document it returns this way (issue-10 profile)
        List<BsonValue> values = new ArrayList<>(pattern.size());
        for (var e : pattern.entrySet()) {
            BsonValue value = valueAt(document, e.getKey());
            values.add(e.getValue().isString() ? new BsonInt64(BsonHasher.hash64(value)) : value);
        }
        return KeyString.encode(values, ordering());
    }

    /**
     * The KeyString of a key or chunk bound given in pattern shape ({@code {country: "FR", name: MinKey}});
     * hashed components must already be hashed (longs) or MinKey/MaxKey.
     *
     * @throws CommandException BadValue when {@code key} does not have exactly the pattern's fields in order
     */
    public byte[] encode(BsonDocument key) {
        if (!ChunkRange.sameFields(key, pattern)) {
            throw new CommandException(ErrorCode.BadValue,
                    "shard key value " + key.toJson() + " does not match the shard key pattern " + pattern.toJson());
        }
        return KeyString.encode(new ArrayList<>(key.values()), ordering());
    }

    /** The lowest bound, MinKey in every field ({@code KeyPattern::globalMin}). */
    public BsonDocument globalMin() {
        return extreme(new BsonMinKey());
    }

    /** The highest bound, MaxKey in every field ({@code KeyPattern::globalMax}). */
    public BsonDocument globalMax() {
        return extreme(new BsonMaxKey());
    }

    /**
     * Whether the bound {@code bound} (a chunk's min or max, in this pattern's fields) is {@link #globalMin}, compared
     * encoded: the bottom of the key space, where the first chunk starts.
     */
    public boolean isGlobalMin(BsonDocument bound) {
        return Arrays.equals(encode(bound), encode(globalMin()));
    }

    /**
     * Whether the bound {@code bound} is {@link #globalMax}, compared encoded: the top of the key space, where the last
     * chunk ends (and which it owns too, unlike any other chunk's max; {@link RoutingTable#findChunk}).
     */
    public boolean isGlobalMax(BsonDocument bound) {
        return Arrays.equals(encode(bound), encode(globalMax()));
    }

    /**
     * The shard key {@code query} pins (MongoDB's {@code ShardKeyPattern::extractShardKeyFromQuery}): in pattern order,
     * the hashed field hashed, ready for {@link #encode}, when the filter has an equality on every key field (the rules
     * of an equality are {@link QueryEqualities}'s: {@code {f: v}}, {@code {f: {$eq: v}}}, in {@code $and}, or inside an
     * equality on a prefix of {@code f}) whose value may be a shard key value (null, MinKey and MaxKey may; an array, a
     * regular expression or a document with {@code $}-prefixed names may not).
     *
     * @return empty when the filter pins no single key
     */
    public Optional<BsonDocument> extractShardKeyFromQuery(BsonDocument query) {
        return equalitiesFromQuery(query).map(this::hashed);
    }

    /**
     * As {@link #extractShardKeyFromQuery} with the hashed field's value unhashed ({@code {country: "FR", name:
     * "Paris"}}), for a caller that still has to look at the values (the router's point-read shortcut, collation checks).
     */
    public Optional<BsonDocument> equalitiesFromQuery(BsonDocument query) {
        List<String> fields = fields();
        List<@Nullable BsonValue> values = QueryEqualities.of(query, fields);
        if (values == null) {
            return Optional.empty();
        }
        BsonDocument key = new BsonDocument();
        for (int i = 0; i < fields.size(); i++) {
            BsonValue value = values.get(i);
            if (value == null || !QueryEqualities.storable(value)) {
                return Optional.empty();
            }
            key.append(fields.get(i), value);
        }
        return Optional.of(key);
    }

    /**
     * As {@link #extractShardKeyFromQuery}, for a command that must name one key (admin {@code split} and
     * {@code moveChunk} with {@code find}; MongoDB answers ShardKeyNotFound there too).
     *
     * @throws CommandException ShardKeyNotFound naming the first key field without a usable equality (or saying
     *                          that the query's equalities on the key conflict)
     */
    public BsonDocument requireShardKeyFromQuery(BsonDocument query) {
        Optional<BsonDocument> key = extractShardKeyFromQuery(query);
        if (key.isPresent()) {
            return key.get();
        }
        List<@Nullable BsonValue> values = QueryEqualities.of(query, fields());
        if (values == null) {
            throw new CommandException(ErrorCode.ShardKeyNotFound, "query " + query.toJson()
                    + " has more than one equality on a shard key field, or one below it, of " + pattern.toJson());
        }
        int i = 0;
        while (values.get(i) != null && QueryEqualities.storable(values.get(i))) {
            i++;
        }
        throw new CommandException(ErrorCode.ShardKeyNotFound, "query " + query.toJson() + (values.get(i) == null
                ? " does not contain shard key field '" : " has no equality that can be a shard key value on field '")
                + fields().get(i) + "'");
    }

    /** {@code equalities} (one value per key field, in pattern order) with the hashed field hashed. */
    private BsonDocument hashed(BsonDocument equalities) {
        BsonDocument key = new BsonDocument();
        for (var e : pattern.entrySet()) {
            BsonValue v = Objects.requireNonNull(equalities.get(e.getKey()), "the equalities hold every key field");
            key.append(e.getKey(), e.getValue().isString() ? new BsonInt64(BsonHasher.hash64(v)) : v);
        }
        return key;
    }

    private BsonDocument extreme(BsonValue v) {
        BsonDocument d = new BsonDocument();
        pattern.keySet().forEach(f -> d.append(f, v));
        return d;
    }

    private static BsonValue valueAt(BsonDocument document, String path) {
        if (path.indexOf('.') < 0) { // a top-level field ({_id: "hashed"}): no split of the path
            BsonValue value = document.get(path);
            if (value != null && value.isArray()) {
                throw new CommandException(ErrorCode.ShardKeyNotFound, "shard key field '" + path + "' must not be an array");
            }
            return value == null ? BsonNull.VALUE : value;
        }
        BsonValue current = document;
        for (String part : path.split("\\.", -1)) {
            if (current.isArray()) {
                throw new CommandException(ErrorCode.ShardKeyNotFound, "shard key path '" + path + "' goes through an array");
            }
            if (!current.isDocument()) {
                return BsonNull.VALUE;
            }
            BsonValue next = current.asDocument().get(part);
            if (next == null) {
                return BsonNull.VALUE;
            }
            current = next;
        }
        if (current.isArray()) {
            throw new CommandException(ErrorCode.ShardKeyNotFound, "shard key field '" + path + "' must not be an array");
        }
        return current;
    }

    /** MongoDB's {@code isShardKeyPatternEl}: every dotted part non-empty and not starting with {@code $} (so "a.$b" too). */
    private static boolean isValidPath(String field) {
        for (String part : field.split("\\.", -1)) {
            if (part.isEmpty() || part.startsWith("$")) {
                return false;
            }
        }
        return true;
    }

    /** {@code "hashed"} as a pattern value. */
    public static BsonString hashedValue() {
        return new BsonString(HASHED);
    }
}
