package dev.shardstore.shard.command;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
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
    private final IndexCatalog indexes;
    private final WriteUnitOfWork units;

    IndexCreator(IndexCatalog indexes, WriteUnitOfWork units) {
        this.indexes = indexes;
        this.units = units;
    }

    /**
     * Creates the indexes of {@code specs} (each as {@link CreateIndexesCommand#validate} returns it) that do not
     * exist yet, all in one transaction: a failing one leaves none of them. The caller holds the collection
     * exclusively.
     *
     * @return how many were created
     * @throws CommandException IndexKeySpecsConflict (86) or IndexOptionsConflict (85) against an existing index;
     *                          DuplicateKey (11000) or the key generation's errors while building on existing data
     */
    public int createAll(CollectionInfo c, List<BsonDocument> specs) {
        try {
            return units.write(work -> createInTransaction(c, specs));
        } finally {
            indexes.forget(c);
        }
    }

    private int createInTransaction(CollectionInfo c, List<BsonDocument> specs) {
        int created = 0;
        for (BsonDocument spec : specs) {
            if (spec.getDocument("key").equals(new BsonDocument("_id", new BsonInt32(1)))
                    && spec.getString("name").getValue().equals("_id_") && spec.size() == 2) {
                continue;
            }
            if (spec.getString("name").getValue().equals("_id_")) {
                throw new CommandException(ErrorCode.IndexKeySpecsConflict, "An existing index has the same name as the requested index "
                        + "but different key specification. Requested index: " + spec.toJson());
            }
            if (!exists(c, spec)) {
                indexes.create(c, spec);
                created++;
            }
        }
        return created;
    }

    /** Whether an identical index exists; throws on a conflicting one. */
    private boolean exists(CollectionInfo c, BsonDocument spec) {
        String name = spec.getString("name").getValue();
        BsonDocument key = spec.getDocument("key");
        for (IndexSpec existing : indexes.list(c)) {
            BsonDocument other = existing.specDocument();
            boolean sameName = existing.name().equals(name);
            boolean sameKey = existing.key().equals(key);
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
