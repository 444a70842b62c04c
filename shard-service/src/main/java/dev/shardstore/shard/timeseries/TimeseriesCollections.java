package dev.shardstore.shard.timeseries;

import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.timeseries.BucketsNamespace;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.versioning.OperationShardingState;
import java.util.Objects;
import java.util.Optional;
import org.bson.BsonValue;
import org.springframework.stereotype.Component;

/**
 * Which namespaces of this shard are time-series collections. As in MongoDB (mongo/src/mongo/db/s/README_timeseries.md), a
 * time-series collection {@code db.coll} is a view-like namespace with no table of its own; its measurements live in
 * buckets in the collection {@code db.system.buckets.coll}, whose create options hold {@code timeseries} (and
 * {@code expireAfterSeconds}). Lookups go through the {@link CollectionCatalog}'s cache.
 */
@Component
public class TimeseriesCollections {
    /** The prefix of a buckets collection's name. */
    public static final String BUCKETS_PREFIX = BucketsNamespace.PREFIX;

    private final CollectionCatalog catalog;

    public TimeseriesCollections(CollectionCatalog catalog) {
        this.catalog = catalog;
    }

    /** {@code db.system.buckets.<coll>} for the time-series namespace {@code db.<coll>}. */
    public static Namespace bucketsOf(Namespace view) {
        return BucketsNamespace.of(view);
    }

    /**
     * The options of the time-series collection whose buckets {@code buckets} holds, empty for any other collection.
     * When the current command is versioned on the sharded buckets collection, the {@code timeseriesFields} of its
     * routing table (checked against the router's version, refreshed from the config service) win over the local
     * options: the config service's are the source of truth of the bucketing (mongo/src/mongo/db/s/README_timeseries.md "Sharding
     * metadata"), and a collMod may not have reached this shard's local options yet.
     */
    public static Optional<TimeseriesOptions> optionsOf(OperationContext opCtx, CollectionInfo buckets) {
        BsonValue spec = buckets.options().get("timeseries");
        if (!isBuckets(buckets)) {
            return Optional.empty();
        }
        TimeseriesOptions sharded = OperationShardingState.filterFor(opCtx, buckets.namespace().full())
                .map(filter -> filter.table().collection().timeseriesFields()).orElse(null);
        return Optional.of(sharded != null ? sharded : TimeseriesOptions.parse(Objects.requireNonNull(spec, "isBuckets checked it"), "timeseries"));
    }

    /**
     * The buckets collection of {@code view} when {@code view} is a time-series collection on this shard; empty for a
     * regular collection or a missing one (a regular collection shadows nothing: create refuses one name for both).
     */
    public Optional<CollectionInfo> buckets(Namespace view) {
        if (view.collection().startsWith("system.") || catalog.find(view).isPresent()) {
            return Optional.empty();
        }
        return catalog.find(bucketsOf(view)).filter(TimeseriesCollections::isBuckets);
    }

    /** Whether {@code collection} is the buckets collection of a time-series collection (it has its options). */
    public static boolean isBuckets(CollectionInfo collection) {
        return collection.namespace().collection().startsWith(BUCKETS_PREFIX) && collection.options().get("timeseries") != null;
    }

    /** The options of the time-series collection {@code view} as {@code opCtx}'s command sees them, empty when it is not one. */
    public Optional<TimeseriesOptions> options(OperationContext opCtx, Namespace view) {
        return buckets(view).flatMap(b -> optionsOf(opCtx, b));
    }

    /**
     * Refuses a collation other than simple on a time-series read or write: its queries run as pipelines over the
     * buckets, which do not compare strings under a collation yet.
     *
     * @param command the command, or the write statement ({@code update.updates.0}), the collation belongs to
     * @throws CommandException NotImplemented (238) naming {@code <command>.collation}
     */
    public static void refuseCollation(Optional<CollectionInfo> buckets, String command, Collation collation) {
        if (buckets.isPresent() && !collation.isSimple()) {
            throw new CommandException(ErrorCode.NotImplemented, "BSON field '" + command + ".collation': a collation other than"
                    + " simple on a time-series collection is not implemented");
        }
    }
}
