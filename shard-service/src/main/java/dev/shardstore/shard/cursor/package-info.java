/**
 * The shard's read path: scans of a collection or an index filtered by the operation's ownership filter, cursors
 * handed out in batches, and the cursor manager whose getMores spend one {@code maxTimeMS} budget.
 */
@NullMarked
package dev.shardstore.shard.cursor;

import org.jspecify.annotations.NullMarked;
