/**
 * The config service's calls to shards over the internal command transport, and the shapes of their answers.
 */
@NullMarked
package dev.shardstore.config.shard;

import org.jspecify.annotations.NullMarked;
