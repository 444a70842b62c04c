package dev.shardstore.router.routing;

import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.bson.Collation;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Exact-match targeting of a query (MongoDB's {@code extractShardKeyFromQuery} and {@code isExactIdQuery}): a
 * field has an equality when the query names it (dotted, as the shard key writes it) at the top level or inside
 * a top-level {@code $and}, with a plain value or {@code {$eq: value}} — not an operator document, a regular
 * expression or an array (which match by element, so they do not pin one shard key).
 */
public final class ShardKeyEqualities {
    private ShardKeyEqualities() {}

    /**
     * The shard key the query pins, in pattern shape with the hashed component hashed (ready for
     * {@link ShardKeyPattern#encode}), when it has an equality on every key field; empty otherwise.
     */
    public static Optional<BsonDocument> shardKey(ShardKeyPattern pattern, BsonDocument query) {
        BsonDocument equalities = new BsonDocument();
        for (String field : pattern.fields()) {
            Optional<BsonValue> value = equality(query, field);
            if (value.isEmpty()) {
                return Optional.empty();
            }
            equalities.append(field, value.get());
        }
        return Optional.of(pattern.keyFromEqualities(equalities));
    }

    /**
     * Whether the query has an equality on {@code _id} that names one document per shard under {@code collation} (a
     * single write may then go to every shard): not a string compared under a non-simple collation, which may equal
     * several {@code _id}s (MongoDB's {@code isExactIdQuery} with a collator).
     */
    public static boolean hasIdEquality(BsonDocument query, Collation collation) {
        return equality(query, "_id").filter(id -> !collation.affects(id)).isPresent();
    }

    /** The equality value of {@code path} in {@code query}, if any. */
    static Optional<BsonValue> equality(BsonDocument query, String path) {
        BsonValue value = query.get(path);
        if (value != null) {
            return equalityValue(value);
        }
        BsonValue and = query.get("$and");
        if (and != null && and.isArray()) {
            for (BsonValue clause : and.asArray()) {
                if (clause.isDocument()) {
                    Optional<BsonValue> found = equality(clause.asDocument(), path);
                    if (found.isPresent()) {
                        return found;
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<BsonValue> equalityValue(BsonValue value) {
        if (value.isArray() || value.isRegularExpression()) {
            return Optional.empty();
        }
        if (value.isDocument() && !value.asDocument().isEmpty() && value.asDocument().getFirstKey().startsWith("$")) {
            BsonDocument operators = value.asDocument();
            return operators.size() == 1 && operators.containsKey("$eq") ? equalityValue(operators.get("$eq")) : Optional.empty();
        }
        return Optional.of(value);
    }
}
