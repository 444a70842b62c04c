/**
 * MongoDB's wire protocol as the cluster speaks it: framing of whole messages, the OP_MSG codec, BSON inside messages,
 * opcodes, and the server side's read-answer-write connection loop. Socket time limits are here too, since the
 * connections stay blocking.
 */
@NullMarked
package dev.shardstore.transport.wire;

import org.jspecify.annotations.NullMarked;
