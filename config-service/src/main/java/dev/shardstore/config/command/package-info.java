/**
 * The config service's commands: the public ones under MongoDB's names ({@code addShard}, {@code listShards}, ...),
 * the internal {@code _configsvr*} ones the routers and shards send, and {@code find}/{@code update} on the
 * {@code config} database. They parse arguments, call the catalog or a coordinator, and shape the reply.
 */
@NullMarked
package dev.shardstore.config.command;

import org.jspecify.annotations.NullMarked;
