/**
 * Time-series collections on a shard: which namespaces are time-series views over their buckets collections, the
 * options that bucket them, and the TTL monitor that deletes expired buckets (mongo/src/mongo/db/s/README_timeseries.md).
 */
@NullMarked
package dev.shardstore.shard.timeseries;

import org.jspecify.annotations.NullMarked;
