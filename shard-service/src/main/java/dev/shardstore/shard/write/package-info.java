/**
 * The shard's write path, the only code that begins and commits a PostgreSQL transaction for a client write:
 * inserts, updates, deletes, findAndModify, time-series measurement writes and index builds, each in a
 * {@link dev.shardstore.shard.storage.WriteUnitOfWork} opened with the operation's context, and the retryable-write
 * protocol around them (docs/architecture.md "The life of a routed write"). Command handlers parse, call it and shape
 * the reply.
 */
@NullMarked
package dev.shardstore.shard.write;

import org.jspecify.annotations.NullMarked;
