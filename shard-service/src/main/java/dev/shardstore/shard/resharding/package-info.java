/**
 * The shard's part of resharding (docs/architecture.md "Resharding"; MongoDB's {@code ReshardingDonorService} and
 * {@code ReshardingRecipientService}). For now the donor's start: its {@code minFetchTimestamp} and the oplog pin that
 * keeps the history after it, persisted and pinned again after a restart; the clone, the oplog apply, the write block and the commit on the shards are to come.
 */
@NullMarked
package dev.shardstore.shard.resharding;

import org.jspecify.annotations.NullMarked;
