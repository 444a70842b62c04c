package dev.shardstore.shard.write;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.shard.cursor.Match;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.engine.query.Update;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import dev.shardstore.shard.versioning.OperationShardingState;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Runs one statement of MongoDB's {@code update} under its collation (filter, sort, array filters and the operators
 * that compare values; a string condition under a non-simple collation is planned without index bounds, see
 * {@link dev.shardstore.shard.plan.QueryPlanner}): applies the update to the first (or, with
 * {@code multi}, every) matching document — the first in {@code sort} order when the statement has one
 * ({@link FirstMatchInOrder}; MongoDB 8.0's updateOne/replaceOne) — writing a {@code u} oplog entry with the post-image for each
 * document it changed; {@code n} counts matches, {@code nModified} changes. With {@code upsert} and no
 * match it inserts the update applied to the filter's equalities; if another writer takes that
 * {@code _id} first, the statement runs once more as an update (MongoDB retries such upserts too).
 * Creates the collection implicitly for an upsert. A versioned update may not move a document to another shard's
 * chunk (WouldChangeOwningShard, 283, as a write error).
 */
@Component
public class DocumentUpdater {
    private final CollectionCatalog catalog;
    private final DocumentStore store;
    private final LockedMatches matches;
    private final WriteUnitOfWork units;
    private final FirstMatchInOrder firstMatch;

    DocumentUpdater(CollectionCatalog catalog, DocumentStore store, LockedMatches matches, FirstMatchInOrder firstMatch,
            WriteUnitOfWork units) {
        this.units = units;
        this.firstMatch = firstMatch;
        this.catalog = catalog;
        this.store = store;
        this.matches = matches;
    }

    /**
     * Runs {@code statement} on {@code ns}; the caller holds the namespace in shared mode.
     *
     * @param variables the command's variables ({@code let}, {@code $$NOW})
     * @param path the statement's name in errors ({@code updates.3})
     */
    public StatementOutcome update(OperationContext opCtx, Namespace ns, UpdateStatement statement, CommandVariables variables, String path) {
        try {
            Filter filter = Filter.parse(statement.q(), variables, statement.collation());
            Update update = parse(statement, variables, path);
            Sort sort = statement.sort() == null || statement.sort().isEmpty() ? null : Sort.parse(statement.sort(), statement.collation());
            Optional<CollectionInfo> collection = statement.upsert()
                    ? Optional.of(catalog.create(opCtx, ns, new BsonDocument()).collection())
                    : catalog.find(ns);
            if (collection.isEmpty()) {
                return new StatementOutcome(0, 0, null, null);
            }
            return run(opCtx, ns, collection.get(), filter, sort, update, statement);
        } catch (CommandException e) {
            return StatementOutcome.failed(e);
        }
    }

    /**
     * The update of {@code statement} ({@code u} with its {@code arrayFilters} and constants {@code c}), checked against
     * the statement's other options.
     *
     * @throws CommandException FailedToParse for {@code c} without a pipeline or a multi replacement; InvalidOptions for
     *                          {@code sort} with {@code multi: true}; what {@link Update#parse} throws
     */
    static Update parse(UpdateStatement statement, CommandVariables variables, String path) {
        if (statement.c() != null && !statement.u().isArray()) {
            throw new CommandException(ErrorCode.FailedToParse, "'" + path + ".c' is only allowed with a pipeline-style update");
        }
        Update update = Update.parse(statement.u(), statement.arrayFilters(), variables.withConstants(statement.c(), path + ".c"),
                statement.collation());
        if (statement.multi() && update.isReplacement()) {
            throw new CommandException(ErrorCode.FailedToParse, "multi update is not supported for replacement-style update");
        }
        if (statement.multi() && statement.sort() != null) {
            throw new CommandException(ErrorCode.InvalidOptions, "'" + path + ".sort' cannot be combined with multi: true");
        }
        return update;
    }

    private StatementOutcome run(OperationContext opCtx, Namespace ns, CollectionInfo collection, Filter filter, @Nullable Sort sort, Update update,
            UpdateStatement statement) {
        for (int attempt = 1; ; attempt++) {
            Tally tally = new Tally();
            if (sort != null) {
                firstMatch.write(opCtx, collection, statement.q(), filter, statement.hint(), sort, (inUnit, match) -> tally.apply(inUnit, collection, filter, update, List.of(match)));
            } else {
                matches.forEach(opCtx, collection, statement.q(), filter, statement.hint(), !statement.multi(), (inUnit, page) -> tally.apply(inUnit, collection, filter, update, page));
            }
            if (tally.error != null || tally.matched > 0 || !statement.upsert()) {
                return new StatementOutcome(tally.matched, tally.modified, null, tally.error);
            }
            BsonDocument inserted = update.applyForUpsert(Update.seedFromEqualities(filter.equalities()));
            if (insertUpserted(opCtx, collection, inserted)) {
                return new StatementOutcome(0, 0, inserted.get("_id"), null);
            }
            if (attempt == 2) {
                throw WriteError.duplicateId(ns, Objects.requireNonNull(inserted.get("_id"), "applyForUpsert gives the document an _id"));
            }
        }
    }

    /**
     * Inserts the document an upsert built; false when another writer took its {@code _id} first (the caller
     * runs the statement once more as an update).
     *
     * @throws CommandException StaleConfig (13388) when a versioned command upserts a document another shard owns;
     *     BSONObjectTooLarge (10334); DuplicateKey (11000) from a unique secondary index,
     *     the insert rolled back (document, oplog entry and index entries are one transaction)
     */
    boolean insertUpserted(OperationContext opCtx, CollectionInfo collection, BsonDocument inserted) {
        OperationShardingState.checkInsert(opCtx, collection.namespace().full(), inserted);
        StoredDocument stored = Documents.encodeWithinLimit(inserted, "upserted document too large");
        return units.write(opCtx, inUnit -> store.insert(inUnit, collection, List.of(stored)).get(0));
    }

    /** Counts of one statement run, accumulated over its pages. */
    private final class Tally {
        long matched;
        long modified;
        @Nullable CommandException error;

        /** Updates one locked page's matches; stops (returns false) at the first failing document. */
        boolean apply(OperationContext inUnit, CollectionInfo collection, Filter filter, Update update, List<Match> page) {
            List<DocumentStore.Replacement> changed = new ArrayList<>();
            boolean refusable = store.mayRefuseDocuments(collection);
            try {
                for (Match match : page) {
                    BsonDocument after = update.apply(match.document(), filter.matchedPosition(match.document()));
                    if (Update.changes(match.document(), after)) {
                        OperationShardingState.checkUpdate(inUnit, collection.namespace().full(), match.document(), after);
                        DocumentStore.Replacement replacement = new DocumentStore.Replacement(match.stored(),
                                Documents.encodeWithinLimit(after, "Resulting document after update is too large"));
                        if (refusable) {
                            // each document under a savepoint: an index refusing it (a duplicate key, parallel arrays) undoes just that document
                            modified += units.savepoint(inUnit, () -> store.replace(inUnit, collection, List.of(replacement)));
                        } else {
                            changed.add(replacement);
                        }
                    }
                    matched++;
                }
            } catch (CommandException e) {
                error = e;
            }
            modified += store.replace(inUnit, collection, changed);
            return error == null;
        }
    }
}
