/**
 * Time-series buckets: their format, filling one, unpacking one back into measurements, the bucket-level predicates
 * derived from a filter on measurements, and the rewrite of reads on a time-series collection into pipelines over its
 * buckets.
 */
@NullMarked
package dev.shardstore.engine.timeseries;

import org.jspecify.annotations.NullMarked;
