/**
 * Commands as a service serves them: the handler interface and registry, the table of options each command accepts,
 * the internal endpoint over HTTP and over OP_MSG on the command port, and the time limit of the running command.
 */
@NullMarked
package dev.shardstore.support.command;

import org.jspecify.annotations.NullMarked;
