/**
 * The catalog events the config service publishes through its outbox to Kafka, whose receivers mark the named caches
 * stale. Only the event's shape and topic are here; publishing and listening belong to the services.
 */
@NullMarked
package dev.shardstore.contracts.event;

import org.jspecify.annotations.NullMarked;
