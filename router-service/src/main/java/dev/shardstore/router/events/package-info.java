/**
 * The router's consumer of catalog events from Kafka, which marks its routing caches stale
 * (docs/architecture.md "Catalog events over Kafka and the outbox").
 */
package dev.shardstore.router.events;
