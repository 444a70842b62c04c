package dev.shardstore.shard.write;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.shard.storage.CollectionCollation;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.IndexCatalog;
import dev.shardstore.shard.storage.IndexSpec;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.springframework.stereotype.Component;
import dev.shardstore.shard.storage.WriteUnitOfWork;

/**
 * Creates validated indexes on a collection, skipping identical existing ones and refusing conflicting ones
 * (createIndexes, the shard key index of {@code _shardsvrPrepareShardCollection}, and a migration recipient's copy of
 * the donor's indexes).
 */
@Component
public class IndexCreator {
    private static final BsonDocument ID_KEY = new BsonDocument("_id", new BsonInt32(1));
    private final IndexCatalog indexes;
    private final WriteUnitOfWork units;

    IndexCreator(IndexCatalog indexes, WriteUnitOfWork units) {
        this.indexes = indexes;
        this.units = units;
    }

    /**
     * Creates the indexes of {@code specs} (each as {@link dev.shardstore.shard.command.CreateIndexesCommand#validate} returns it) that do not
     * exist yet, all in one transaction: a failing one leaves none of them. The caller holds the collection
     * exclusively. An index without {@code collation} gets the collection's default collation.
     *
     * @return how many were created
     * @throws CommandException IndexKeySpecsConflict (86) or IndexOptionsConflict (85) against an existing index;
     *                          DuplicateKey (11000) or the key generation's errors while building on existing data
     */
    public int createAll(OperationContext opCtx, CollectionInfo c, List<BsonDocument> specs) {
        try {
            return units.write(opCtx, inUnit -> createInTransaction(inUnit, c, specs));
        } finally {
            indexes.forget(c);
        }
    }

    private int createInTransaction(OperationContext opCtx, CollectionInfo c, List<BsonDocument> specs) {
        int created = 0;
        Collation collectionDefault = CollectionCollation.defaultOf(c);
        for (BsonDocument given : specs) {
            BsonDocument spec = withCollation(given, collectionDefault);
            boolean idName = spec.getString("name").getValue().equals(IndexSpec.ID_INDEX_NAME);
            if (idName && spec.getDocument("key").equals(ID_KEY)) {
                if (!collationOf(spec).equals(collectionDefault) || spec.size() != (collectionDefault.isSimple() ? 2 : 3)) {
                    throw new CommandException(ErrorCode.BadValue, "The _id index must have the collection's default collation "
                            + collectionDefault.toDocument().toJson() + " and no other options. Requested index: " + given.toJson());
                }
                continue; // the collection's own _id index
            }
            if (idName) {
                throw new CommandException(ErrorCode.IndexKeySpecsConflict, "An existing index has the same name as the requested index "
                        + "but different key specification. Requested index: " + spec.toJson());
            }
            if (!exists(c, spec)) {
                indexes.create(opCtx, c, spec);
                created++;
            }
        }
        return created;
    }

    /**
     * The spec with the collation the index gets (MongoDB's {@code addCollationDefaultsToIndexSpecsForCreate}): its own
     * full spec when given and not simple; none (the simple collation) for {@code {locale: "simple"}}; the collection's
     * default when it gives none.
     */
    private static BsonDocument withCollation(BsonDocument spec, Collation collectionDefault) {
        Collation collation = spec.containsKey(CollectionCollation.OPTION) ? collationOf(spec) : collectionDefault;
        BsonDocument out = spec.clone();
        out.remove(CollectionCollation.OPTION);
        if (!collation.isSimple()) {
            out.append(CollectionCollation.OPTION, collation.toDocument());
        }
        return out;
    }

    private static Collation collationOf(BsonDocument resolved) {
        return Collation.parse(CollectionCollation.OPTION, resolved.get(CollectionCollation.OPTION));
    }

    /**
     * Whether an identical index exists; throws on a conflicting one. Indexes with one key pattern and different
     * collations are different indexes (MongoDB allows them under different names).
     */
    private boolean exists(CollectionInfo c, BsonDocument spec) {
        String name = spec.getString("name").getValue();
        BsonDocument key = spec.getDocument("key");
        for (IndexSpec existing : indexes.list(c)) {
            BsonDocument other = existing.specDocument();
            boolean sameName = existing.name().equals(name);
            boolean sameKey = existing.key().equals(key) && existing.collation().equals(collationOf(spec));
            if (sameName && !sameKey) {
                throw new CommandException(ErrorCode.IndexKeySpecsConflict, "An existing index has the same name as the requested index "
                        + "but different key specification. Requested index: " + spec.toJson() + ", existing index: " + other.toJson());
            }
            if (sameName || sameKey) {
                if (other.equals(spec)) {
                    return true;
                }
                throw new CommandException(ErrorCode.IndexOptionsConflict, (sameName
                        ? "An existing index has the same name as the requested index but different options. "
                        : "Index already exists with a different name: " + existing.name() + ". ")
                        + "Requested index: " + spec.toJson() + ", existing index: " + other.toJson());
            }
        }
        return false;
    }
}
