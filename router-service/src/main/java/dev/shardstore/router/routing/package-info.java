/**
 * Routing: the cached databases and routing tables, shard-key targeting and the versioned send loop that retries on
 * stale routing (docs/architecture.md "Shard versioning and the stale-config retry loop").
 */
@NullMarked
package dev.shardstore.router.routing;

import org.jspecify.annotations.NullMarked;
