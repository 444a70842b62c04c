/**
 * The shard's storage on PostgreSQL: collections and their documents, indexes, the oplog with its time reservations
 * and all-durable point, session history, and the unit of work that owns a write's transaction boundary
 * (docs/architecture.md "Shard storage and the oplog").
 */
@NullMarked
package dev.shardstore.shard.storage;

import org.jspecify.annotations.NullMarked;
