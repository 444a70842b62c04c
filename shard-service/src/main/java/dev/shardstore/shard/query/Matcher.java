package dev.shardstore.shard.query;

import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** A node of a parsed filter: MongoDB's {@code MatchExpression}. Implementations are immutable. */
interface Matcher {
    boolean matches(BsonDocument doc);

    /**
     * Adds the equality conditions this node guarantees ({@code path = value}) to {@code into}, keeping
     * the first value for a path. Only AND-ed equalities count; the default contributes nothing.
     */
    default void collectEqualities(Map<String, BsonValue> into) {}
}
