/**
 * The shard service (MongoDB's shard {@code mongod}): its Spring Boot application, properties, metrics and the
 * sharding-state Actuator endpoint. The packages below it hold its command handlers, write and read paths, storage
 * and the sharding protocols it takes part in (docs/architecture.md "Services").
 */
@NullMarked
package dev.shardstore.shard;

import org.jspecify.annotations.NullMarked;
