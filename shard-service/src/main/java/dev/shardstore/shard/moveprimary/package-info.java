/**
 * movePrimary on a shard: the database critical section and the cloning of a database's unsharded collections from
 * its old primary.
 */
@NullMarked
package dev.shardstore.shard.moveprimary;

import org.jspecify.annotations.NullMarked;
