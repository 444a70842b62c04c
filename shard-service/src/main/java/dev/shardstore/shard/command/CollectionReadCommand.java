package dev.shardstore.shard.command;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.storage.CollectionCatalog;
import dev.shardstore.shard.storage.CollectionCollation;
import dev.shardstore.shard.storage.CollectionInfo;
import dev.shardstore.shard.timeseries.TimeseriesCollections;
import dev.shardstore.shard.versioning.CollectionAccess;
import java.util.Optional;
import org.bson.BsonDocument;

/**
 * What the shard's reads of a collection share ({@code find}, {@code count}, {@code distinct}, {@code aggregate}): they
 * run under the collection's read lock, serve time-series collections by reading their buckets, and resolve the
 * collation they compare strings with in one way ({@link #target}).
 */
abstract class CollectionReadCommand extends ShardCommand {
    private final CollectionCatalog catalog;
    private final TimeseriesCollections timeseries;
    /** Runs pipelines: aggregations, and reads of time-series collections rewritten as pipelines over their buckets. */
    protected final PipelineRunner pipelines;

    protected CollectionReadCommand(CommandInvoker invoker, CollectionCatalog catalog, TimeseriesCollections timeseries,
            PipelineRunner pipelines) {
        super(invoker);
        this.catalog = catalog;
        this.timeseries = timeseries;
        this.pipelines = pipelines;
    }

    @Override
    protected final boolean servesTimeseries() {
        return true;
    }

    @Override
    protected final CollectionAccess access() {
        return CollectionAccess.READ;
    }

    /**
     * What a read of {@code ns} reads.
     *
     * @param buckets    the buckets of a time-series collection {@code ns}, else empty
     * @param collection the collection read: the buckets, or {@code ns} itself; empty when it does not exist
     * @param collation  the command's {@code collation}, or the collection's default when it names none
     */
    protected record Target(Optional<CollectionInfo> buckets, Optional<CollectionInfo> collection, Collation collation) {
    }

    /**
     * The target of this command on {@code ns}.
     *
     * @throws dev.shardstore.contracts.error.CommandException for a malformed {@code collation} (naming
     *         {@code <command>.collation}), or a non-simple one on a time-series collection
     *         ({@link TimeseriesCollections#refuseCollation})
     */
    protected final Target target(Namespace ns, BsonDocument command) {
        Optional<CollectionInfo> buckets = timeseries.buckets(ns);
        Optional<CollectionInfo> collection = buckets.isPresent() ? buckets : catalog.find(ns);
        Collation collation = CollectionCollation.effective(name() + ".collation", command.get("collation"), collection);
        TimeseriesCollections.refuseCollation(buckets, name(), collation);
        return new Target(buckets, collection, collation);
    }
}
