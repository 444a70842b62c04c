/**
 * The router's command handlers, and {@link dev.shardstore.router.command.ClientCommands}, the one entry of REST and
 * wire commands that starts each operation's context: handlers parse, call the write path ({@code router.write}), the
 * read path ({@code router.query}) or the routing layer, and shape the reply.
 */
@NullMarked
package dev.shardstore.router.command;

import org.jspecify.annotations.NullMarked;
