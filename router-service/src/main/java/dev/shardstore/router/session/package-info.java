/**
 * Logical sessions on the router: the session commands and the aggregation stages that list sessions.
 */
package dev.shardstore.router.session;
