package dev.shardstore.shard.command;

import dev.shardstore.shard.write.IndexCreator;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.support.command.CommandOptions;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionCollation;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.IndexCatalog;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.shard.versioning.CollectionAccess;
import dev.shardstore.shard.versioning.CollectionShardingState;
import org.springframework.stereotype.Component;

/**
 * MongoDB's {@code createIndexes}: {@code {createIndexes: <coll>, indexes: [{key: {a: 1, b: -1}, name?,
 * unique?, sparse?, partialFilterExpression?, collation?}]}} → {@code {numIndexesBefore, numIndexesAfter,
 * createdCollectionAutomatically, ok}} (counts include {@code _id_}). Ascending/descending keys and at most one
 * {@code "hashed"} field (named {@code a_hashed}; never unique, CannotCreateIndex) — text and 2dsphere are
 * NotImplemented. Re-creating an identical index is a no-op ({@code note:
 * "all indexes already exist"}); the same name with another key is IndexKeySpecsConflict (86), the same
 * name or key with other options IndexOptionsConflict (85). The command's indexes are built in one
 * transaction with the collection held exclusively: if one fails, none is left. On a sharded collection a unique
 * index the shard key does not lead is CannotCreateIndex (67), MongoDB's rule ({@link #requireUniqueIndexesCompatible}).
 * An index's {@code collation} (MongoDB manual, "Collation and Index Use") orders and compares its string keys
 * ({@link dev.shardstore.shard.storage.IndexKeys}); without one an index takes the collection's default collation,
 * {@code {locale: "simple"}} asks for the simple one ({@link IndexCreator}).
 */
@Component
public class CreateIndexesCommand extends ShardCommand {
    private static final String HASHED = "hashed";

    private final CollectionCatalog catalog;
    private final IndexCatalog indexes;
    private final IndexCreator creator;
    private final CollectionShardingState sharding;

    public CreateIndexesCommand(CommandInvoker invoker, CollectionCatalog catalog, IndexCatalog indexes,
            IndexCreator creator, CollectionShardingState sharding) {
        super(invoker);
        this.catalog = catalog;
        this.indexes = indexes;
        this.creator = creator;
        this.sharding = sharding;
    }

    @Override
    public String name() {
        return "createIndexes";
    }

    @Override
    protected CollectionAccess access() {
        return CollectionAccess.EXCLUSIVE;
    }

    @Override
    protected BsonDocument execute(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        Namespace ns = new Namespace(db, args.collectionName());
        BsonValue raw = command.get("indexes");
        if (raw == null || !raw.isArray() || raw.asArray().isEmpty()) {
            throw new CommandException(ErrorCode.BadValue, "Must specify at least one index to create");
        }
        List<BsonDocument> specs = new ArrayList<>();
        for (int i = 0; i < raw.asArray().size(); i++) {
            specs.add(validate(args.document(raw.asArray().get(i), "indexes." + i)));
        }
        requireUniqueIndexesCompatible(ns, specs);
        CollectionCatalog.Creation creation = catalog.create(opCtx, ns, new BsonDocument());
        CollectionInfo c = creation.collection();
        int before = indexes.list(c).size() + 1;
        int created = creator.createAll(opCtx, c, specs);
        BsonDocument reply = new BsonDocument("numIndexesBefore", new BsonInt32(before))
                .append("numIndexesAfter", new BsonInt32(before + created))
                .append("createdCollectionAutomatically", BsonBoolean.valueOf(creation.created()));
        if (created == 0) {
            reply.append("note", new BsonString("all indexes already exist"));
        }
        return Replies.ok(reply);
    }

    /**
     * On a sharded collection a unique index must be one the shard key can enforce
     * ({@link ShardKeyPattern#isUniqueIndexCompatible}): each shard checks uniqueness among its own documents only.
     * Checked under the exclusive collection lock against the shard's filtering metadata, so a concurrent
     * shardCollection (which holds the collection in its critical section) is either before or after it.
     *
     * @throws CommandException CannotCreateIndex (67) with MongoDB's message naming the index key and the shard key
     */
    private void requireUniqueIndexesCompatible(Namespace ns, List<BsonDocument> specs) {
        if (specs.stream().noneMatch(spec -> spec.containsKey("unique"))) {
            return; // nothing to check: no metadata load
        }
        sharding.get(ns.full()).table().map(table -> table.shardKey()).ifPresent(key -> {
            for (BsonDocument spec : specs) {
                if (spec.containsKey("unique") && !key.isUniqueIndexCompatible(spec.getDocument("key"))) {
                    throw new CommandException(ErrorCode.CannotCreateIndex, "cannot create unique index over " + spec.getDocument("key").toJson()
                            + " with shard key pattern " + key.pattern().toJson());
                }
            }
        });
    }

    /**
     * The spec in its stored form, or an error naming what is wrong with it. Its fields were checked by
     * {@link CommandOptions} (unknown ones are InvalidIndexSpecificationOption (197), unsupported ones NotImplemented).
     */
    public static BsonDocument validate(BsonDocument spec) {
        BsonValue key = spec.get("key");
        if (key == null || !key.isDocument() || key.asDocument().isEmpty()) {
            throw new CommandException(ErrorCode.CannotCreateIndex, "Index keys cannot be empty. Specification: " + spec.toJson());
        }
        BsonDocument normalized = new BsonDocument();
        List<String> nameParts = new ArrayList<>();
        for (var e : key.asDocument().entrySet()) {
            BsonValue direction = e.getValue();
            if (direction.isString()) {
                String type = direction.asString().getValue();
                if (!type.equals(HASHED)) {
                    throw new CommandException(ErrorCode.NotImplemented, "index type '" + type + "' is not supported");
                }
                if (normalized.containsValue(direction)) {
                    throw new CommandException(ErrorCode.CannotCreateIndex,
                            "A maximum of one index field is allowed to be hashed but found more for key: " + key.asDocument().toJson());
                }
                if (e.getKey().isEmpty() || e.getKey().startsWith("$")) {
                    throw new CommandException(ErrorCode.CannotCreateIndex, "field names must be non-empty: " + key.asDocument().toJson());
                }
                normalized.append(e.getKey(), direction);
                nameParts.add(e.getKey() + "_" + HASHED);
                continue;
            }
            if (!direction.isNumber() || direction.asNumber().doubleValue() == 0 || e.getKey().isEmpty() || e.getKey().startsWith("$")) {
                throw new CommandException(ErrorCode.CannotCreateIndex, "Values in the index key pattern can only be numbers > 0 or < 0 "
                        + "and field names must be non-empty: " + key.asDocument().toJson());
            }
            int dir = direction.asNumber().doubleValue() > 0 ? 1 : -1;
            normalized.append(e.getKey(), new BsonInt32(dir));
            nameParts.add(e.getKey() + "_" + dir);
        }
        BsonValue name = spec.get("name");
        if (name != null && (!name.isString() || name.asString().getValue().isEmpty())) {
            throw new CommandException(ErrorCode.CannotCreateIndex, "The index name must be a non-empty string");
        }
        BsonDocument out = new BsonDocument("key", normalized)
                .append("name", name != null ? name : new BsonString(String.join("_", nameParts)));
        for (String flag : List.of("unique", "sparse")) {
            BsonValue v = spec.get(flag);
            if (v != null && !v.isBoolean() && !v.isNumber()) {
                throw new CommandException(ErrorCode.TypeMismatch, "The field '" + flag + "' must be a boolean");
            }
            if (v != null && (v.isBoolean() ? v.asBoolean().getValue() : v.asNumber().doubleValue() != 0)) {
                out.append(flag, BsonBoolean.TRUE);
            }
        }
        if (out.containsKey("unique") && normalized.containsValue(new BsonString(HASHED))) {
            throw new CommandException(ErrorCode.CannotCreateIndex,
                    "Currently hashed indexes cannot guarantee uniqueness. Use a regular index. Specification: " + spec.toJson());
        }
        BsonValue partial = spec.get("partialFilterExpression");
        if (partial != null) {
            if (!partial.isDocument()) {
                throw new CommandException(ErrorCode.TypeMismatch, "The field 'partialFilterExpression' must be an object");
            }
            Filter.parse(partial.asDocument());
            out.append("partialFilterExpression", partial);
        }
        BsonValue collation = spec.get(CollectionCollation.OPTION);
        if (collation != null) { // kept even when simple: IndexCreator tells it from "the collection's default"
            out.append(CollectionCollation.OPTION, Collation.parse(CollectionCollation.OPTION, collation).toDocument());
        }
        return out;
    }
}
