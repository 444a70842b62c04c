/**
 * Cluster time signing keys ({@code admin.system.keys}): the config service makes them ahead of need, rotates them and
 * signs its own cluster times with them.
 */
@NullMarked
package dev.shardstore.config.keys;

import org.jspecify.annotations.NullMarked;
