package dev.shardstore.shard.plan;

import dev.shardstore.engine.bounds.IndexBounds;
import dev.shardstore.shard.storage.IndexSpec;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;

/** How a query reads its candidates: the whole collection, one {@code _id}, or a range of one index. */
public sealed interface Plan {
    /** Explain's {@code winningPlan} for this plan; {@code filter} is the parsed query ({@code {}} for none). */
    BsonDocument winningPlan(BsonDocument filter);

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

    /** The entries of {@code index} within {@code bounds}, each joined to its document. */
    record IndexScan(IndexSpec index, IndexBounds bounds) implements Plan {
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
            BsonDocument fetch = new BsonDocument("stage", new BsonString("FETCH"));
            if (!filter.isEmpty()) {
                fetch.append("filter", filter);
            }
            return fetch.append("inputStage", ixscan);
        }
    }

    /** Explain's stage name of the plan's leaf. */
    static String leaf(Plan plan) {
        return switch (plan) {
            case CollScan c -> "COLLSCAN";
            case IdLookup i -> "IDHACK";
            case IndexScan s -> "IXSCAN";
        };
    }

    /** Whether {@code hint} asks for anything ({@code null}, {@code {}} and {@code ""} do not). */
    static boolean isHint(BsonValue hint) {
        return hint != null && !(hint.isDocument() && hint.asDocument().isEmpty()) && !(hint.isString() && hint.asString().getValue().isEmpty());
    }
}
