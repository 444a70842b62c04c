/**
 * The router's audit log (docs/architecture.md "The audit log"): authentication attempts, user and role changes, DDL and
 * sharding administration, each as one event in MongoDB's audit message shape, kept for {@code /actuator/audit} and
 * written as JSON lines to a file.
 */
@NullMarked
package dev.shardstore.router.audit;

import org.jspecify.annotations.NullMarked;
