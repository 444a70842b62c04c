/**
 * The shard's query planner: chooses a collection scan, an {@code _id} lookup or an index scan with its KeyString
 * bounds for a filter, and says when those bounds answer the filter exactly.
 */
@NullMarked
package dev.shardstore.shard.plan;

import org.jspecify.annotations.NullMarked;
