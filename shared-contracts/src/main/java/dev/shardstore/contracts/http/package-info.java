/**
 * The shape of the service-to-service command protocol: the path, media type, command fields and reply header that
 * every internal peer agrees on. The code that carries it (clients, the OP_MSG channel, the body converter) is the
 * {@code transport} module's.
 */
@NullMarked
package dev.shardstore.contracts.http;

import org.jspecify.annotations.NullMarked;
