/**
 * Views on a shard: the view catalog and the resolution of a view to its collection and pipeline, which the router
 * then runs.
 */
@NullMarked
package dev.shardstore.shard.view;

import org.jspecify.annotations.NullMarked;
