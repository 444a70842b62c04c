/**
 * The transactional outbox: catalog events are written in the transaction of the change they announce, then relayed to
 * Kafka in order and deleted once the broker acknowledged them (at least once).
 */
@NullMarked
package dev.shardstore.config.outbox;

import org.jspecify.annotations.NullMarked;
