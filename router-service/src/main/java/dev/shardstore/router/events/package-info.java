/**
 * The router's consumer of catalog events from Kafka, which marks its routing caches stale
 * (docs/architecture.md "Catalog events over Kafka and the outbox").
 */
@NullMarked
package dev.shardstore.router.events;

import org.jspecify.annotations.NullMarked;
