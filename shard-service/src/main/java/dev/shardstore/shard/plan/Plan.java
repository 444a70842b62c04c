package dev.shardstore.shard.plan;

import dev.shardstore.engine.aggregate.expression.Contract;
import dev.shardstore.engine.bounds.IndexBounds;
import dev.shardstore.shard.storage.IndexSpec;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import dev.shardstore.contracts.keystring.Ordering;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How a query reads its candidates: the whole collection, one {@code _id}, a range of {@code _id}s (the collection
 * table's primary key, MongoDB's {@code _id_} index), or a range of one secondary index.
 */
public sealed interface Plan {
    /** The {@code _id} index's key pattern. */
    BsonDocument ID_PATTERN = new BsonDocument("_id", new BsonInt32(1));
    /** Explain's {@code winningPlan} for this plan; {@code filter} is the parsed query ({@code {}} for none). */
    BsonDocument winningPlan(BsonDocument filter);

    /**
     * Whether every document the plan reads matches the filter, so the scan need not check it (MongoDB's "exact" bounds
     * tightness; {@link QueryPlanner#exactOnId}, {@link QueryPlanner#exactOn}). False unless a range plan says so.
     */
    default boolean exact() {
        return false;
    }

    /** Every document in {@code _id} order. */
    record CollScan() implements Plan {
        @Override
        public BsonDocument winningPlan(BsonDocument filter) {
            BsonDocument stage = new BsonDocument("stage", new BsonString("COLLSCAN"));
            if (!filter.isEmpty()) {
                stage.append("filter", filter);
            }
            return stage.append("direction", new BsonString("forward"));
        }
    }

    /** The one document whose {@code _id} KeyString is {@code id} (MongoDB's IDHACK). */
    record IdLookup(byte[] id) implements Plan {
        @Override
        public BsonDocument winningPlan(BsonDocument filter) {
            return new BsonDocument("stage", new BsonString("IDHACK"));
        }
    }

    /**
     * The documents whose {@code _id} KeyString lies within {@code bounds}, read in {@code _id} order straight from the
     * collection table's primary key (no join): what MongoDB's IXSCAN of {@code _id_} does for an {@code _id} range.
     * Explain shows the filter under FETCH only when the scan applies it: with exact bounds FETCH has none, as in MongoDB.
     *
     * @param exact whether every document within the bounds matches the filter, so the scan need not check it (MongoDB's
     *              "exact" bounds tightness; {@link QueryPlanner#exactOnId})
     */
    record IdRange(IndexBounds bounds, boolean exact) implements Plan {
        @Override
        public BsonDocument winningPlan(BsonDocument filter) {
            BsonDocument ixscan = new BsonDocument("stage", new BsonString("IXSCAN"))
                    .append("keyPattern", ID_PATTERN)
                    .append("indexName", new BsonString("_id_"))
                    .append("isMultiKey", BsonBoolean.FALSE)
                    .append("isUnique", BsonBoolean.TRUE)
                    .append("isSparse", BsonBoolean.FALSE)
                    .append("isPartial", BsonBoolean.FALSE)
                    .append("indexVersion", new BsonInt32(2))
                    .append("direction", new BsonString("forward"))
                    .append("indexBounds", bounds.explain(List.of("_id"), Ordering.fromKeyPattern(ID_PATTERN)));
            return fetch(this, filter, ixscan);
        }
    }

    /**
     * The entries of {@code index} within {@code bounds}, each joined to its document. As for {@link IdRange}, explain
     * shows the filter under FETCH only when the scan applies it.
     *
     * @param exact whether every entry within the bounds belongs to a document the filter matches, so the scan need not
     *              check it ({@link QueryPlanner#exactOn})
     */
    record IndexScan(IndexSpec index, IndexBounds bounds, boolean exact) implements Plan {
        @Override
        public BsonDocument winningPlan(BsonDocument filter) {
            BsonDocument ixscan = new BsonDocument("stage", new BsonString("IXSCAN"))
                    .append("keyPattern", index.key())
                    .append("indexName", new BsonString(index.name()))
                    .append("isMultiKey", BsonBoolean.valueOf(index.multikey()))
                    .append("isUnique", BsonBoolean.valueOf(index.unique()))
                    .append("isSparse", BsonBoolean.valueOf(index.sparse()))
                    .append("isPartial", BsonBoolean.valueOf(index.partial() != null))
                    .append("indexVersion", new BsonInt32(2))
                    .append("direction", new BsonString("forward"))
                    .append("indexBounds", bounds.explain(index.fields(), index.ordering()));
            return fetch(this, filter, ixscan);
        }
    }

    /** FETCH over {@code ixscan}, showing {@code filter} only when the scan applies it (not over exact bounds). */
    private static BsonDocument fetch(Plan plan, BsonDocument filter, BsonDocument ixscan) {
        BsonDocument fetch = new BsonDocument("stage", new BsonString("FETCH"));
        if (!plan.exact() && !filter.isEmpty()) {
            fetch.append("filter", filter);
        }
        return fetch.append("inputStage", ixscan);
    }

    /** Explain's stage name of the plan's leaf. */
    static String leaf(Plan plan) {
        return switch (plan) {
            case CollScan c -> "COLLSCAN";
            case IdLookup i -> "IDHACK";
            case IdRange r -> "IXSCAN";
            case IndexScan s -> "IXSCAN";
        };
    }

    /**
     * Whether the plan reads documents in ascending {@code _id} order, so that a sort leading with {@code _id: 1} needs
     * no sort stage (the {@code _id} is unique: later sort keys never break a tie).
     */
    static boolean readsInIdOrder(Plan plan) {
        return !(plan instanceof IndexScan);
    }

    /** Whether {@code hint} asks for anything ({@code null}, {@code {}} and {@code ""} do not). */
    @Contract("null -> false")
    static boolean isHint(@Nullable BsonValue hint) {
        return hint != null && !(hint.isDocument() && hint.asDocument().isEmpty()) && !(hint.isString() && hint.asString().getValue().isEmpty());
    }
}
