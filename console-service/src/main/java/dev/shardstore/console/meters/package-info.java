/**
 * The history of the shards' command meters that the operations page charts (docs/architecture.md "The operator's
 * console"): the console samples each shard's {@code shardstore.shard.command} timer from its Prometheus endpoint every
 * {@code shardstore.console.sample-interval} and keeps the last 15 minutes of throughput and p99 latency per shard.
 */
@NullMarked
package dev.shardstore.console.meters;

import org.jspecify.annotations.NullMarked;
