/**
 * Memory budgets of blocking stages and spilling to disk (docs/architecture.md "Memory limits"): the budgets and
 * {@code allowDiskUse} of one command ({@link dev.shardstore.engine.spill.MemoryLimits}), the service's spill directory
 * ({@link dev.shardstore.engine.spill.SpillDirectory}) and the external sort that writes sorted runs there and merges
 * them ({@link dev.shardstore.engine.spill.ExternalSorter}).
 */
@NullMarked
package dev.shardstore.engine.spill;

import org.jspecify.annotations.NullMarked;
