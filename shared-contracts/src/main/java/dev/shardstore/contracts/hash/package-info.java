/**
 * MongoDB's hash of a BSON value, the one used by hashed indexes, hashed shard keys and {@code $toHashedIndexKey}.
 */
@NullMarked
package dev.shardstore.contracts.hash;

import org.jspecify.annotations.NullMarked;
