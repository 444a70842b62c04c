package dev.shardstore.shard.write;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.shard.cursor.Match;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.engine.query.Update;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.SessionHistory;
import dev.shardstore.shard.storage.WriteUnitOfWork;
import dev.shardstore.contracts.namespace.Namespace;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import dev.shardstore.shard.versioning.OperationShardingState;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Runs one {@code findAndModify}: removes or updates the first match in sort order, locked and checked again
 * ({@link FirstMatchInOrder}), so the document returned is exactly the one changed.
 * An upsert inserts as {@link DocumentUpdater} does (and, if another writer takes that {@code _id} first, looks
 * again). Creates the collection implicitly for an upsert; a missing collection otherwise matches nothing. In a
 * retryable write the document before the change is kept with the oplog entry, so that a retry can return it.
 */
@Component
public class FindAndModifier {
    private final CollectionCatalog catalog;
    private final DocumentStore store;
    private final FirstMatchInOrder firstMatch;
    private final DocumentUpdater updater;
    private final WriteUnitOfWork units;

    FindAndModifier(CollectionCatalog catalog, DocumentStore store, FirstMatchInOrder firstMatch, DocumentUpdater updater,
            WriteUnitOfWork units) {
        this.units = units;
        this.catalog = catalog;
        this.store = store;
        this.firstMatch = firstMatch;
        this.updater = updater;
    }

    /**
     * What to do.
     *
     * @param filterSpec the query as given, for the planner
     * @param filter the query
     * @param hint the index to read through ({@link dev.shardstore.shard.plan.QueryPlanner}); null for none
     * @param sort which match comes first; null for {@code _id} order
     * @param update the update; null to remove
     * @param returnNew return the post-image rather than the pre-image
     * @param upsert insert when nothing matches
     */
    public record Request(BsonDocument filterSpec, Filter filter, @Nullable BsonValue hint, @Nullable Sort sort, @Nullable Update update, boolean returnNew, boolean upsert) {}

    /**
     * What happened.
     *
     * @param value the document to return (unprojected), or null
     * @param n documents removed, updated or upserted (0 or 1)
     * @param updatedExisting an existing document was updated
     * @param upsertedId the {@code _id} an upsert inserted, or null
     */
    public record Outcome(@Nullable BsonDocument value, int n, boolean updatedExisting, @Nullable BsonValue upsertedId) {}

    /** Runs {@code request} on {@code ns}; the caller holds the namespace in shared mode. */
    public Outcome run(OperationContext opCtx, Namespace ns, Request request) {
        Optional<CollectionInfo> found = request.upsert()
                ? Optional.of(catalog.create(opCtx, ns, new BsonDocument()).collection())
                : catalog.find(ns);
        if (found.isEmpty()) {
            return new Outcome(null, 0, false, null);
        }
        CollectionInfo collection = found.get();
        while (true) {
            AtomicReference<Outcome> outcome = new AtomicReference<>();
            if (firstMatch.write(opCtx, collection, request.filterSpec(), request.filter(), request.hint(), request.sort(), (inUnit, match) ->
                    outcome.set(request.update() == null ? remove(inUnit, collection, match) : update(inUnit, collection, match, request.update(), request)))) {
                return outcome.get();
            }
            if (!request.upsert()) {
                return new Outcome(null, 0, false, null);
            }
            Update update = Objects.requireNonNull(request.update(), "the command refuses an upsert without an update");
            BsonDocument inserted = update.applyForUpsert(Update.seedFromEqualities(request.filter().equalities()));
            if (updater.insertUpserted(opCtx, collection, inserted)) {
                return new Outcome(request.returnNew() ? inserted : null, 1, false, inserted.get("_id"));
            }
        }
    }

    /**
     * The outcome of a retryable findAndModify that already ran, from its oplog entry ({@link RetryableWrites}): the
     * removed document, the document before or after its update, or the upserted one.
     */
    public static Outcome replayed(SessionHistory.ExecutedStatement executed, boolean returnNew) {
        return switch (executed.op()) {
            case DELETE -> new Outcome(executed.preImage(), 1, false, null);
            case UPDATE -> new Outcome(returnNew ? executed.o() : executed.preImage(), 1, true, null);
            case INSERT -> new Outcome(returnNew ? executed.o() : null, 1, false,
                    Objects.requireNonNull(executed.o(), "an insert's oplog entry holds the document").get("_id"));
            case COMMAND -> throw new IllegalStateException("a command entry is no statement's history");
        };
    }

    private Outcome remove(OperationContext inUnit, CollectionInfo collection, Match match) {
        units.notePreImage(inUnit, match.document());
        store.delete(inUnit, collection, List.of(match.stored()));
        return new Outcome(match.document(), 1, false, null);
    }

    private Outcome update(OperationContext inUnit, CollectionInfo collection, Match match, Update update, Request request) {
        BsonDocument before = match.document();
        BsonDocument after = update.apply(before, request.filter().matchedPosition(before));
        if (Update.changes(before, after)) {
            units.notePreImage(inUnit, before);
            OperationShardingState.checkUpdate(inUnit, collection.namespace().full(), before, after);
            store.replace(inUnit, collection, List.of(new DocumentStore.Replacement(match.stored(),
                    Documents.encodeWithinLimit(after, "Resulting document after update is too large"))));
        }
        return new Outcome(request.returnNew() ? after : before, 1, true, null);
    }
}
