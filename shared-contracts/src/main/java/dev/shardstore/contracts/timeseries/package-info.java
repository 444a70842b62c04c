/**
 * Time-series collections as value types: their options and granularity, the namespace of their buckets collection, and
 * the translation of a user's shard key to the key of the buckets.
 */
@NullMarked
package dev.shardstore.contracts.timeseries;

import org.jspecify.annotations.NullMarked;
