/**
 * The project's one list of MongoDB error codes, the exception that carries one through a command, and the shapes of
 * error replies and of the HTTP problem body that the front ends answer with.
 */
@NullMarked
package dev.shardstore.contracts.error;

import org.jspecify.annotations.NullMarked;
