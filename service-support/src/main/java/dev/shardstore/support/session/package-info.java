/**
 * A node's logical session cache: the sessions used on this node with their last use, synced with the session service
 * in the background (routers and shards turn it on).
 */
@NullMarked
package dev.shardstore.support.session;

import org.jspecify.annotations.NullMarked;
