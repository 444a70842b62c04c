/**
 * Auto-split: tracks the bytes written per chunk ({@link dev.shardstore.shard.autosplit.ChunkWritesTracker}) and,
 * past the chunk size, picks split points and asks the config service to split (docs/architecture.md "Auto-split").
 */
@NullMarked
package dev.shardstore.shard.autosplit;

import org.jspecify.annotations.NullMarked;
