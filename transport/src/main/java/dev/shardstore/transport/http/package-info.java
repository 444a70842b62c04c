/**
 * The client side of the service-to-service transport: the pooled HTTP {@code CommandClient}, the OP_MSG
 * {@code WireCommandChannel} it moves a peer's commands to once the peer names its command port, and the converter of
 * BSON and Extended JSON bodies. What travels is {@code contracts.http.InternalApi}'s contract.
 */
@NullMarked
package dev.shardstore.transport.http;

import org.jspecify.annotations.NullMarked;
