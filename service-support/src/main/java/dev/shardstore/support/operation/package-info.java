/**
 * The state of one operation, passed as a parameter from a service's front end down its call chain: the
 * {@link dev.shardstore.support.operation.OperationContext}, its {@link dev.shardstore.support.operation.Deadline}
 * and its {@link dev.shardstore.support.operation.Caller}. No operation state lives in a thread-local.
 */
@NullMarked
package dev.shardstore.support.operation;

import org.jspecify.annotations.NullMarked;
