/**
 * The sharding model shared by router, shards and config service: shard key patterns, chunks and their ranges in key and
 * KeyString form, sharded collection entries, the immutable routing table and the {@code StaleConfig} error. Value types
 * only; loading and caching them is the services' work.
 */
@NullMarked
package dev.shardstore.contracts.sharding;

import org.jspecify.annotations.NullMarked;
