/**
 * The shard's logical session catalog: checking a session out for one command at a time and reaping the
 * {@code transactions} rows of expired sessions (docs/architecture.md "Logical sessions and retryable writes").
 */
@NullMarked
package dev.shardstore.shard.session;

import org.jspecify.annotations.NullMarked;
