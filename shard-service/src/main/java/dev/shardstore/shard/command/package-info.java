/**
 * The shard's command handlers: each parses its command, runs through the
 * {@link dev.shardstore.shard.command.CommandInvoker} (lock, version checks, metrics) with the operation's context,
 * calls the write path ({@code shard.write}) or the read path ({@code shard.cursor}) and shapes the reply.
 */
@NullMarked
package dev.shardstore.shard.command;

import org.jspecify.annotations.NullMarked;
