package dev.shardstore.engine.aggregate;

import dev.shardstore.engine.query.Filter;
import java.util.List;
import org.bson.BsonDocument;

/**
 * The documents of other collections of the same database, as {@code $lookup} reads them. The shard's
 * {@code aggregate} command implements it over shard storage; tests implement it over maps.
 */
@FunctionalInterface
public interface CollectionSource {
    /**
     * The documents of {@code collection} matching {@code filter}, in storage order; empty when the
     * collection does not exist.
     */
    List<BsonDocument> find(String collection, Filter filter);
}
