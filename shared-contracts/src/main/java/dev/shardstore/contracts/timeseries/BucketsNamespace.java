package dev.shardstore.contracts.timeseries;

import dev.shardstore.contracts.namespace.Namespace;
import java.util.Optional;

/**
 * The namespace of a time-series collection's buckets: {@code db.system.buckets.<coll>} for the time-series namespace
 * {@code db.<coll>} (mongo/src/mongo/db/s/README_timeseries.md; what {@code config.collections} shards).
 */
public final class BucketsNamespace {
    /** The prefix of a buckets collection's name. */
    public static final String PREFIX = "system.buckets.";

    private BucketsNamespace() {}

    /** {@code db.system.buckets.<coll>} for {@code view}. */
    public static Namespace of(Namespace view) {
        return new Namespace(view.db(), PREFIX + view.collection());
    }

    /**
     * The buckets namespace {@code view} may have: empty for a {@code system.} collection, which is never a
     * time-series collection.
     */
    public static Optional<Namespace> candidate(Namespace view) {
        return view.collection().startsWith("system.") ? Optional.empty() : Optional.of(of(view));
    }
}
