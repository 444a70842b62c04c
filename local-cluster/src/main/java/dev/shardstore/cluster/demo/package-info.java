/**
 * The guided tour of {@code ./cluster demo}: the bundled cities as a hashed sharded collection and the bundled weather
 * data as a sharded time-series collection, loaded and queried through a router.
 */
@NullMarked
package dev.shardstore.cluster.demo;

import org.jspecify.annotations.NullMarked;
