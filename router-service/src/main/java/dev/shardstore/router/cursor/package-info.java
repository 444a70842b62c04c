/**
 * The router's cursors: merged streams of shard cursors handed to clients in batches, bound to their sessions.
 */
@NullMarked
package dev.shardstore.router.cursor;

import org.jspecify.annotations.NullMarked;
