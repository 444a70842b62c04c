/**
 * The router service (MongoDB's {@code mongos}): its Spring Boot application. The packages below it hold its front
 * ends, command handlers, write and read paths and the routing caches (docs/architecture.md "Services").
 */
@NullMarked
package dev.shardstore.router;

import org.jspecify.annotations.NullMarked;
