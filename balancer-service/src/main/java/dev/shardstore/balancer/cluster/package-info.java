/**
 * What a balancer round reads from the cluster before it decides: settings, shards, collections, chunks, zones and data
 * sizes, from the config service and the shards.
 */
@NullMarked
package dev.shardstore.balancer.cluster;

import org.jspecify.annotations.NullMarked;
