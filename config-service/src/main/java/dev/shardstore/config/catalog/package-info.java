/**
 * The catalog in PostgreSQL: {@code config.shards}, {@code config.databases}, {@code config.collections},
 * {@code config.chunks} and the persisted DDL coordinators, with the chunk commits and the version rules every commit
 * follows. A change writes its outbox events in its own transaction ({@code config.outbox}).
 */
@NullMarked
package dev.shardstore.config.catalog;

import org.jspecify.annotations.NullMarked;
