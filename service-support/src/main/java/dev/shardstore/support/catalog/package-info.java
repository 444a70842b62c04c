/**
 * What the router and the shards both cache of the config service's catalog, in one place: the loaders of a
 * collection's routing table and of a database's entry, the coalescing cache that holds them, and the mapping from
 * the config service's catalog events to cache invalidations. Each service wires its own caches to these.
 */
@NullMarked
package dev.shardstore.support.catalog;

import org.jspecify.annotations.NullMarked;
