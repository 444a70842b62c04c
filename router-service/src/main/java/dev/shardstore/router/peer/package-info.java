/**
 * The router's client of its peers (shards and the config service), with a circuit breaker per peer.
 */
package dev.shardstore.router.peer;
