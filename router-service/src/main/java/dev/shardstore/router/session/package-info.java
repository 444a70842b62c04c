/**
 * Logical sessions on the router: the session commands and the aggregation stages that list sessions.
 */
@NullMarked
package dev.shardstore.router.session;

import org.jspecify.annotations.NullMarked;
