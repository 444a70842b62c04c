/**
 * The router's write engine: a write command's statements targeted by shard key and sent as per-shard batches, and
 * single-document writes without a shard key (docs/architecture.md "The life of a routed write"). Command handlers
 * parse, call it and shape the reply.
 */
@NullMarked
package dev.shardstore.router.write;

import org.jspecify.annotations.NullMarked;
