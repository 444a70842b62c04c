package dev.shardstore.shard.storage;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.RoutingTable;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.versioning.CollectionFilteringInfo;
import dev.shardstore.shard.versioning.CollectionShardingState;
import dev.shardstore.shard.versioning.OperationShardingState;
import dev.shardstore.shard.versioning.OwnershipFilter;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The {@code documentKey} and shard key KeyString that the oplog entry of a document write carries (MongoDB's
 * {@code getDocumentKey}): {@code {<shard key fields>, _id}} for a sharded collection, {@code {_id}} otherwise.
 *
 * <p>Where the shard key comes from: the filtering metadata of the running command when it is versioned on the
 * collection (the version check loaded it), else the shard's cached filtering metadata of the namespace
 * ({@link CollectionShardingState#known}, stale-marked entries included: the key of a sharded collection changes
 * only through a DDL operation, not through the chunk moves a stale mark is about). An unversioned write to a
 * collection whose metadata this shard has never loaded records {@code {_id}} only and no shard key — as
 * MongoDB does when the metadata is unknown — rather than block the write on the config service. Readers stay
 * correct because a reader that selects by shard key range (chunk migration, resharding) loads the collection's
 * metadata before it pins its start time ({@link OplogReader#pin}), and the metadata stays cached from then on,
 * so every write after its start records the key. A document whose shard key cannot be extracted (an array on
 * the key path) belongs to no chunk, and likewise records no key.
 */
@Component
public class DocumentKeys {
    private final CollectionShardingState sharding;

    public DocumentKeys(CollectionShardingState sharding) {
        this.sharding = sharding;
    }

    /** The shard key of writes to {@code ns} by {@code opCtx}'s command; null when unsharded or unknown. */
    @Nullable ShardKeyPattern shardKeyOf(OperationContext opCtx, Namespace ns) {
        String namespace = ns.full();
        return OperationShardingState.filterFor(opCtx, namespace)
                .map(OwnershipFilter::table)
                .or(() -> sharding.known(namespace).flatMap(CollectionFilteringInfo::table))
                .map(RoutingTable::shardKey)
                .orElse(null);
    }

    /**
     * The keys of the document {@code bson} under {@code pattern}.
     *
     * @param pattern the collection's shard key, null for an unsharded collection
     */
    static Key of(@Nullable ShardKeyPattern pattern, byte[] bson) {
        if (pattern != null) {
            RawBsonDocument document = new RawBsonDocument(bson);
            try {
                return new Key(BsonBytes.encode(pattern.documentKey(document)), pattern.keyOf(document));
            } catch (CommandException e) {
                // an array on the shard key path: the document is in no chunk, so no range reader wants it by key
            }
        }
        byte[] idOnly = BsonBytes.idDocument(bson); // stored documents have _id first: its element's bytes, copied
        return new Key(idOnly != null ? idOnly : BsonBytes.encode(new BsonDocument("_id", new RawBsonDocument(bson).get("_id"))), null);
    }

    /**
     * One document's keys.
     *
     * @param documentKey the BSON {@code documentKey}, the entry's {@code o2}
     * @param shardKey    the KeyString of the shard key (as {@link ShardKeyPattern#keyOf}), null when unsharded
     */
    record Key(byte[] documentKey, byte @Nullable [] shardKey) {}
}
