package dev.shardstore.shard.write;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.Filter;
import dev.shardstore.engine.query.Update;
import dev.shardstore.engine.timeseries.Bucket;
import dev.shardstore.engine.timeseries.BucketPredicates;
import dev.shardstore.engine.timeseries.BucketUnpacker;
import dev.shardstore.shard.cursor.Match;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.storage.DocumentStore;
import dev.shardstore.shard.storage.StoredDocument;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import dev.shardstore.shard.versioning.OperationShardingState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The write path of {@code update} and {@code delete} on a time-series collection (MongoDB 7.0+ "arbitrary" updates
 * and deletes of measurements; mongo/src/mongo/db/s/README_timeseries.md "CRUD operations": they run one bucket at a time,
 * unpacking it). The measurement filter {@code q} gives a bucket-level filter ({@link BucketPredicates}: meta →
 * {@code meta}, time → {@code control.min/max}); the candidate buckets are read locked, page by page, through
 * {@link LockedMatches} (so buckets this shard does not own are never touched), unpacked ({@link BucketUnpacker}) and
 * the measurement filter and update run on each measurement with the query engine. Each changed bucket is rewritten
 * ({@link Bucket#repack}: {@code control.min/max} recomputed exactly) or removed when left empty, in the page's
 * transaction. An updated measurement whose meta or time no longer fits its bucket is removed from it and written,
 * in the same transaction, into new buckets of their own, as MongoDB's side bucket catalog does for such updates; a
 * new bucket another shard would own is the write error WouldChangeOwningShard (283). A single-measurement statement
 * ({@code limit: 1}, {@code multi: false}) changes at most one measurement. An upsert that matches nothing inserts
 * the built measurement through the {@link BucketCatalog}.
 */
@Component
public class TimeseriesModifier {
    private final LockedMatches matches;
    private final DocumentStore store;
    private final BucketCatalog catalog;

    TimeseriesModifier(LockedMatches matches, DocumentStore store, BucketCatalog catalog) {
        this.matches = matches;
        this.store = store;
        this.catalog = catalog;
    }

    /**
     * One {@code delete} statement on the time-series collection whose buckets are {@code buckets}; the caller holds
     * it in shared mode. {@code n} counts deleted measurements.
     *
     * The statement's {@code hint} is refused (NotImplemented) when given: indexes of time-series collections are not
     * hinted here; so is a non-simple {@code collation} ({@link TimeseriesCollections#refuseCollation}).
     *
     * @param path the statement's name in errors ({@code deletes.3})
     */
    public StatementOutcome delete(OperationContext opCtx, CollectionInfo buckets, TimeseriesOptions options, DeleteStatement statement, CommandVariables variables,
            String path) {
        try {
            refuseHint(statement.hint(), "delete");
            TimeseriesCollections.refuseCollation(Optional.of(buckets), "delete." + path, statement.collation());
            Tally tally = modify(opCtx, buckets, options, statement.q(), Filter.parse(statement.q(), variables), statement.justOne(),
                    (m, filter) -> null);
            return new StatementOutcome(tally.matched, 0, null, tally.error);
        } catch (CommandException e) {
            return StatementOutcome.failed(e);
        }
    }

    /**
     * One {@code update} statement on the time-series collection whose buckets are {@code buckets}; the caller holds
     * it in shared mode. {@code n} counts matched measurements, {@code nModified} changed ones, an upsert reports
     * its {@code _id}. A non-simple {@code collation} is refused ({@link TimeseriesCollections#refuseCollation}).
     *
     * @param path the statement's name in errors ({@code updates.3})
     */
    public StatementOutcome update(OperationContext opCtx, CollectionInfo buckets, TimeseriesOptions options, UpdateStatement statement, CommandVariables variables,
            String path) {
        try {
            refuseHint(statement.hint(), "update");
            TimeseriesCollections.refuseCollation(Optional.of(buckets), "update." + path, statement.collation());
            if (statement.sort() != null && !statement.sort().isEmpty()) {
                throw new CommandException(ErrorCode.NotImplemented, "'" + path + ".sort' is not supported on a time-series collection");
            }
            Filter filter = Filter.parse(statement.q(), variables);
            Update update = DocumentUpdater.parse(statement, variables, path);
            Tally tally = modify(opCtx, buckets, options, statement.q(), filter, !statement.multi(),
                    (m, f) -> update.apply(m, f.matchedPosition(m)));
            if (tally.error != null || tally.matched > 0 || !statement.upsert()) {
                return new StatementOutcome(tally.matched, tally.modified, null, tally.error);
            }
            BsonDocument inserted = DocumentInserter.withIdFirst(update.applyForUpsert(Update.seedFromEqualities(filter.equalities())));
            Bucket.timeOf(options, inserted);
            Documents.encodeWithinLimit(inserted, "upserted document too large");
            catalog.insert(opCtx, buckets, options, List.of(inserted));
            return new StatementOutcome(0, 0, inserted.get("_id"), null);
        } catch (CommandException e) {
            return StatementOutcome.failed(e);
        }
    }

    private static void refuseHint(@Nullable BsonValue hint, String command) {
        if (hint != null && !hint.isNull()) {
            throw new CommandException(ErrorCode.NotImplemented, "hint is not supported for " + command + " on a time-series collection");
        }
    }

    /**
     * Runs the change over the measurements matching {@code filter}: {@code change} gives a matched measurement's
     * new version, or null to delete it.
     */
    private Tally modify(OperationContext opCtx, CollectionInfo buckets, TimeseriesOptions options, BsonDocument q, Filter filter, boolean justOne,
            BiFunction<BsonDocument, Filter, @Nullable BsonDocument> change) {
        BsonDocument bucketSpec = BucketPredicates.of(options, q);
        Filter bucketFilter = Filter.parse(bucketSpec);
        BucketUnpacker unpacker = new BucketUnpacker(options.timeField(), options.metaField(), null, true);
        Tally tally = new Tally();
        matches.forEach(opCtx, buckets, bucketSpec, bucketFilter, null, false, (inUnit, page) -> {
            try {
                Tally pageTally = rewrite(inUnit, buckets, options, unpacker, filter, justOne ? 1 : Long.MAX_VALUE, change, page, tally.created);
                tally.matched += pageTally.matched;
                tally.modified += pageTally.modified;
                tally.created.addAll(pageTally.created);
                return !(justOne && tally.matched > 0);
            } catch (CommandException e) {
                tally.error = e; // this page wrote nothing; the pages before it are committed
                return false;
            }
        });
        if (tally.matched > 0) {
            catalog.clear(buckets.uuid()); // buckets shrank, vanished or moved: new inserts place from what is stored
        }
        return tally;
    }

    /**
     * Applies the change to one locked page of buckets, up to {@code limit} measurements, and writes the result. The
     * buckets this statement created ({@code created}) hold measurements it already changed: the scan may meet them
     * again, and they are left alone so that no measurement is changed twice.
     */
    private Tally rewrite(OperationContext opCtx, CollectionInfo buckets, TimeseriesOptions options, BucketUnpacker unpacker, Filter filter, long limit,
            BiFunction<BsonDocument, Filter, @Nullable BsonDocument> change, List<Match> page, Set<BsonValue> created) {
        Tally tally = new Tally();
        List<StoredDocument> emptied = new ArrayList<>();
        List<DocumentStore.Replacement> rewritten = new ArrayList<>();
        List<BsonDocument> moved = new ArrayList<>();
        for (Match bucket : page) {
            if (created.contains(bucket.document().get("_id"))) {
                continue;
            }
            List<BsonDocument> kept = new ArrayList<>();
            boolean changed = false;
            for (BsonDocument measurement : unpacker.unpack(bucket.document())) {
                if (tally.matched >= limit || !filter.matches(measurement)) {
                    kept.add(measurement);
                    continue;
                }
                tally.matched++;
                BsonDocument after = change.apply(measurement, filter);
                if (after != null && !Update.changes(measurement, after)) {
                    kept.add(measurement);
                    continue;
                }
                changed = true;
                if (after == null) {
                    continue;
                }
                tally.modified++;
                (staysIn(options, bucket.document(), measurement, after) ? kept : moved).add(after);
            }
            if (!changed) {
                continue;
            }
            if (kept.isEmpty()) {
                emptied.add(bucket.stored());
            } else {
                BsonDocument repacked = Bucket.repack(options, bucket.document(), kept).toDocument();
                rewritten.add(new DocumentStore.Replacement(bucket.stored(), Documents.encodeWithinLimit(repacked, "time-series bucket too large")));
            }
        }
        List<BsonDocument> fresh = freshBuckets(opCtx, buckets, options, moved);
        store.delete(opCtx, buckets, emptied);
        store.replace(opCtx, buckets, rewritten);
        store.insert(opCtx, buckets, fresh.stream().map(StoredDocument::of).toList());
        fresh.forEach(b -> tally.created.add(b.get("_id")));
        return tally;
    }

    /** Whether {@code after}, the update of {@code before}, stays in {@code bucket}: same meta, time within its span. */
    private static boolean staysIn(TimeseriesOptions options, BsonDocument bucket, BsonDocument before, BsonDocument after) {
        long time = Bucket.timeOf(options, after);
        long min = bucket.getDocument("control").getDocument("min").getDateTime(options.timeField()).getValue();
        boolean sameMeta = options.metaField() == null || Objects.equals(before.get(options.metaField()), after.get(options.metaField()));
        return sameMeta && time >= min && time < min + options.bucketMaxSpanMillis();
    }

    /**
     * New buckets for the measurements an update moved out of theirs, filled in order per meta value.
     *
     * @throws CommandException WouldChangeOwningShard (283) when this shard would not own such a bucket
     */
    private static List<BsonDocument> freshBuckets(OperationContext opCtx, CollectionInfo buckets, TimeseriesOptions options, List<BsonDocument> moved) {
        Map<BsonDocument, Bucket> open = new LinkedHashMap<>();
        List<Bucket> filled = new ArrayList<>();
        for (BsonDocument measurement : moved) {
            BsonValue meta = options.metaField() == null ? null : measurement.get(options.metaField());
            BsonDocument key = meta == null ? new BsonDocument() : new BsonDocument("m", meta);
            long time = Bucket.timeOf(options, measurement);
            int size = Documents.encodeWithinLimit(measurement, "Resulting document after update is too large").size();
            Bucket bucket = open.get(key);
            if (bucket == null || !bucket.fits(time, size)) {
                bucket = Bucket.open(options, meta, time);
                open.put(key, bucket);
                filled.add(bucket);
            }
            bucket.add(measurement, size);
        }
        List<BsonDocument> docs = new ArrayList<>(filled.size());
        for (Bucket bucket : filled) {
            BsonDocument doc = bucket.toDocument();
            OperationShardingState.checkCreated(opCtx, buckets.namespace().full(), doc);
            docs.add(doc);
        }
        return docs;
    }

    /** Counts of a statement (or one page of it), the new buckets it wrote and the error that stopped it. */
    private static final class Tally {
        final Set<BsonValue> created = new HashSet<>();
        long matched;
        long modified;
        @Nullable CommandException error;
    }
}
