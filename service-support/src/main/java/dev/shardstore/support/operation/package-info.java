/**
 * The state of one operation, passed as a parameter from a service's front end down its call chain: the
 * {@link dev.shardstore.support.operation.OperationContext}, its {@link dev.shardstore.support.operation.Deadline}
 * and its {@link dev.shardstore.support.operation.Caller}; and the commands running in a service, which
 * {@link dev.shardstore.support.operation.OperationRegistry} lists for {@code $currentOp} and marks killed for
 * {@code killOp} ({@link dev.shardstore.support.operation.RunningOperation}). No operation state lives in a thread-local.
 */
@NullMarked
package dev.shardstore.support.operation;

import org.jspecify.annotations.NullMarked;
