/**
 * Bulk loading of JSON, JSON Lines and CSV files (optionally gzipped) into a collection through a router: streaming
 * readers, insert batches sent a few at a time, progress and the report.
 */
@NullMarked
package dev.shardstore.cluster.load;

import org.jspecify.annotations.NullMarked;
