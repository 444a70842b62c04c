/**
 * The shard's part of multi-document transactions (mongo/src/mongo/db/s/README.md "Transactions"): the participant,
 * which runs a session's transaction statements in one PostgreSQL transaction and commits or aborts it (the
 * {@code commitTransaction}/{@code abortTransaction} handlers are {@code command}'s). The PostgreSQL side (the pinned connection, the
 * provisional oplog times) is {@code storage}'s {@code WriteUnitOfWork}.
 */
@NullMarked
package dev.shardstore.shard.transaction;

import org.jspecify.annotations.NullMarked;
