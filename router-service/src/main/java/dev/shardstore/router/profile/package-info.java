/**
 * The router's slow-operation log (docs/architecture.md "Slow operations"): client commands that took longer than
 * {@code slowms}, set with MongoDB's {@code profile} command at level 0 as on a mongos, kept for
 * {@code /actuator/slowOperations} and the console's Operations page and logged as MongoDB's "Slow query" lines.
 */
@NullMarked
package dev.shardstore.router.profile;

import org.jspecify.annotations.NullMarked;
