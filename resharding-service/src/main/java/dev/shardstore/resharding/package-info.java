/**
 * The resharding service: the coordinator of {@code reshardCollection} (docs/architecture.md "Resharding"); the donors
 * and recipients run on the shards.
 */
@NullMarked
package dev.shardstore.resharding;

import org.jspecify.annotations.NullMarked;
