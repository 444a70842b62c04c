/**
 * The router's client of its peers (shards and the config service), with a circuit breaker per peer.
 */
@NullMarked
package dev.shardstore.router.peer;

import org.jspecify.annotations.NullMarked;
