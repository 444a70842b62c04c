/**
 * A service's in-memory cache of the cluster time signing keys that the config service owns, refreshed ahead of
 * expiry, through which the service signs and checks cluster times.
 */
@NullMarked
package dev.shardstore.support.clock;

import org.jspecify.annotations.NullMarked;
