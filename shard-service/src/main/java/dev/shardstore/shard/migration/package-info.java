/**
 * Chunk migration and range deletion on a shard, donor and recipient side: the persisted coordinator state, the
 * clone and catch-up, the critical section and the deletion of donated ranges (docs/architecture.md "Chunk migration").
 */
@NullMarked
package dev.shardstore.shard.migration;

import org.jspecify.annotations.NullMarked;
