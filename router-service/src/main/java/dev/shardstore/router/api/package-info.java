/**
 * The router's REST front end: the command endpoint, the resource endpoints on top of it and the Actuator endpoints
 * of its caches and events (docs/architecture.md "The client API: REST and the wire protocol").
 */
@NullMarked
package dev.shardstore.router.api;

import org.jspecify.annotations.NullMarked;
