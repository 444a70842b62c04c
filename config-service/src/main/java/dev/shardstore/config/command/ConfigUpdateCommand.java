package dev.shardstore.config.command;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.config.catalog.ShardedCollectionCatalog;
import dev.shardstore.config.settings.ClusterSettings;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.support.command.CommandHandler;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code update} on the {@code config} database, what mongosh's helpers send through mongos: on {@code config.settings}
 * ({@code db.settings.updateOne({_id: "chunksize"}, {$set: {value: 64}}, {upsert: true})}, {@code sh.startAutoMerger()},
 * the balancer's {@code activeWindow}, {@code attemptToBalanceJumboChunks}, {@code _waitForDelete}) through
 * {@link ClusterSettings#update}, and on {@code config.collections} for {@code noBalance} ({@code sh.disableBalancing(ns)},
 * {@code sh.enableBalancing(ns)}). Each statement selects one document by {@code q: {_id: <string>}} and changes it with
 * {@code $set} and {@code $unset}; all statements are one transaction, so a refused statement writes nothing (no partial
 * write). Reply: {@code {n, nModified, upserted?: [{index, _id}], ok: 1}}.
 *
 * <p>Errors, each naming {@code updates.<i>.<field>}: IllegalOperation for another config collection (they change through
 * their commands); NotImplemented for a filter other than {@code {_id: <string>}}, a replacement or pipeline {@code u}, an
 * operator other than {@code $set}/{@code $unset}, statement options other than {@code upsert} and {@code multi},
 * {@code upsert} on {@code config.collections} (sharding creates those entries), or a {@code config.collections} field
 * other than {@code noBalance} (use {@code configureCollectionBalancing}); the settings' own errors
 * ({@link ClusterSettings#update}). A {@code config.collections} entry that does not exist is not matched ({@code n: 0}), as
 * MongoDB's update of a missing document.
 */
@Component
public class ConfigUpdateCommand implements CommandHandler {
    private static final Set<String> STATEMENT_FIELDS = Set.of("q", "u", "upsert", "multi");
    private final ClusterSettings settings;
    private final ShardedCollectionCatalog collections;
    private final TransactionTemplate tx;

    public ConfigUpdateCommand(ClusterSettings settings, ShardedCollectionCatalog collections, TransactionTemplate tx) {
        this.settings = settings;
        this.collections = collections;
        this.tx = tx;
    }

    @Override
    public String name() {
        return "update";
    }

    @Override
    public BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        String collection = args.collectionName();
        if (!"config".equals(db) || !Set.of("settings", "collections").contains(collection)) {
            throw new CommandException(ErrorCode.IllegalOperation, "update on the config service is limited to config.settings and"
                    + " config.collections (noBalance); " + db + "." + collection + " changes through its commands");
        }
        BsonArray updates = args.requiredBatch("updates");
        return tx.execute(status -> {
            long matched = 0;
            long modified = 0;
            BsonArray upserted = new BsonArray();
            for (int i = 0; i < updates.size(); i++) {
                Statement statement = Statement.parse(args, updates.get(i), "updates." + i);
                boolean[] outcome = collection.equals("settings") ? settings(statement) : collectionEntry(statement);
                matched += outcome[0] ? 1 : 0;
                modified += outcome[1] ? 1 : 0;
                if (outcome[2]) {
                    upserted.add(new BsonDocument("index", new BsonInt32(i)).append("_id", new org.bson.BsonString(statement.id())));
                }
            }
            BsonDocument reply = new BsonDocument("n", new org.bson.BsonInt64(matched + upserted.size()))
                    .append("nModified", new org.bson.BsonInt64(modified));
            if (!upserted.isEmpty()) {
                reply.append("upserted", upserted);
            }
            return Replies.ok(reply);
        });
    }

    /** {matched, modified, upserted}. */
    private boolean[] settings(Statement statement) {
        ClusterSettings.Updated updated = settings.update(statement.id(), statement.set(), statement.unset(), statement.upsert());
        return new boolean[] {updated.matched(), updated.modified(), !updated.matched() && updated.document().isPresent()};
    }

    private boolean[] collectionEntry(Statement statement) {
        if (statement.upsert()) {
            throw new CommandException(ErrorCode.NotImplemented, "'" + statement.path() + ".upsert' is not supported on config.collections:"
                    + " its entries are created by shardCollection");
        }
        for (String field : union(statement.set().keySet(), statement.unset())) {
            if (!field.equals("noBalance")) {
                throw new CommandException(ErrorCode.NotImplemented, "'" + statement.path() + ".u' changes config.collections field '" + field
                        + "'; only 'noBalance' changes through update (configureCollectionBalancing sets chunkSize and enableAutoMerger)");
            }
        }
        Boolean noBalance = statement.unset().contains("noBalance") ? Boolean.FALSE : null;
        BsonValue value = statement.set().get("noBalance");
        if (value != null) {
            if (!value.isBoolean()) {
                throw new CommandException(ErrorCode.TypeMismatch, "'" + statement.path() + ".u.$set.noBalance' must be a boolean");
            }
            noBalance = value.asBoolean().getValue();
        }
        Namespace.parse(statement.id());
        java.util.Optional<ShardedCollection> current = collections.find(statement.id());
        if (current.isEmpty()) {
            return new boolean[] {false, false, false};
        }
        boolean after = collections.configureBalancing(statement.id(), null, null, noBalance).noBalance();
        return new boolean[] {true, current.get().noBalance() != after, false};
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new LinkedHashSet<>(a);
        all.addAll(b);
        return all;
    }

    /** One parsed statement: the selected {@code _id}, the fields to set and to unset. */
    private record Statement(String path, String id, BsonDocument set, Set<String> unset, boolean upsert) {
        static Statement parse(CommandArgs args, BsonValue raw, String path) {
            BsonDocument statement = args.document(raw, path);
            for (String field : statement.keySet()) {
                if (!STATEMENT_FIELDS.contains(field)) {
                    throw new CommandException(ErrorCode.NotImplemented, "'" + path + "." + field + "' is not supported on the config database");
                }
            }
            BsonDocument q = args.document(args.required(statement, "q", path + ".q"), path + ".q");
            if (q.size() != 1 || !q.isString("_id")) {
                throw new CommandException(ErrorCode.NotImplemented, "'" + path + ".q' must select one document by {_id: \"<name>\"} on the"
                        + " config database, not " + q.toJson());
            }
            BsonValue u = args.required(statement, "u", path + ".u");
            if (!u.isDocument() || u.asDocument().isEmpty() || !u.asDocument().getFirstKey().startsWith("$")) {
                throw new CommandException(ErrorCode.NotImplemented, "'" + path + ".u' must be update operators ($set, $unset) on the config"
                        + " database; replacements and pipelines are not supported");
            }
            BsonDocument set = new BsonDocument();
            Set<String> unset = new LinkedHashSet<>();
            for (Map.Entry<String, BsonValue> operator : u.asDocument().entrySet()) {
                BsonDocument fields = args.document(operator.getValue(), path + ".u." + operator.getKey());
                switch (operator.getKey()) {
                    case "$set" -> set.putAll(fields);
                    case "$unset" -> unset.addAll(fields.keySet());
                    default -> throw new CommandException(ErrorCode.NotImplemented, "'" + path + ".u." + operator.getKey()
                            + "' is not supported on the config database ($set and $unset are)");
                }
            }
            return new Statement(path, q.getString("_id").getValue(), set, unset,
                    args.optionalBoolean(statement, "upsert", path + ".upsert", false));
        }
    }
}
