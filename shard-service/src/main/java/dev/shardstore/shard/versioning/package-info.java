/**
 * Shard and database versioning on a shard: the cached filtering metadata, the version checks under the collection
 * and database locks, critical sections, and the catalog events that mark the caches stale (docs/architecture.md
 * "Shard versioning and the stale-config retry loop").
 */
@NullMarked
package dev.shardstore.shard.versioning;

import org.jspecify.annotations.NullMarked;
