package dev.shardstore.shard.storage;

/**
 * The size of one database's collections on this shard, as {@code listDatabases} reports it.
 *
 * @param name       the database name
 * @param sizeOnDisk bytes of its tables including indexes and TOAST ({@code pg_total_relation_size})
 * @param empty      true when none of its collections holds a document
 */
public record DatabaseSize(String name, long sizeOnDisk, boolean empty) {}
