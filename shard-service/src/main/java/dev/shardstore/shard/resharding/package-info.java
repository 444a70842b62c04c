/**
 * The shard's part of resharding (docs/architecture.md "Resharding"; MongoDB's {@code ReshardingDonorService} and
 * {@code ReshardingRecipientService}). Donor: its {@code minFetchTimestamp} and the oplog pin that keeps the history
 * after it, persisted and pinned again after a restart ({@link dev.shardstore.shard.resharding.ReshardingDonors}), the
 * sample of the new key, the clone pages at {@code cloneTimestamp}, its oplog after it and the verification's digests
 * ({@link dev.shardstore.shard.resharding.ReshardingCloneSource}), the old collection's drop at the commit. Recipient:
 * the temporary collection, the clone with persisted resume tokens, the oplog apply, the rename at the commit
 * ({@link dev.shardstore.shard.resharding.ReshardingRecipients}).
 */
@NullMarked
package dev.shardstore.shard.resharding;

import org.jspecify.annotations.NullMarked;
