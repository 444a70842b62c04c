/**
 * MongoDB's wire protocol front end: the listener, OP_MSG, OP_QUERY and OP_COMPRESSED handling and the connection
 * handshake (docs/architecture.md "The client API: REST and the wire protocol").
 */
@NullMarked
package dev.shardstore.router.wire;

import org.jspecify.annotations.NullMarked;
