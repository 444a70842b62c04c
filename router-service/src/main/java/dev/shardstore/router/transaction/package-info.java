/**
 * The router's part of multi-document transactions (mongo/src/mongo/db/s/README.md "Transactions"): the state of each
 * session's transaction — its participants, which of them wrote, the read concern its first statement set — and
 * how a statement sent to a participant carries it ({@code startTransaction} and {@code readConcern} on the first
 * contact only). The commands that commit and abort are {@code command}'s; {@code routing} sends the statements.
 */
@NullMarked
package dev.shardstore.router.transaction;

import org.jspecify.annotations.NullMarked;
