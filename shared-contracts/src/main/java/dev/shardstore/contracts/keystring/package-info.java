/**
 * KeyString: the order-preserving byte encoding of BSON values and compound keys, so that comparing the bytes compares
 * the values in MongoDB's order. Shards store index keys and chunk bounds this way; routers compare shard keys with it.
 */
@NullMarked
package dev.shardstore.contracts.keystring;

import org.jspecify.annotations.NullMarked;
