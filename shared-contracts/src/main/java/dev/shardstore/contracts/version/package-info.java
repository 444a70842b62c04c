/**
 * The versions that tell a router its cached placement is stale: a chunk's (and so a shard's and a collection's) version
 * and a database's version, with their BSON shapes and comparison rules.
 */
@NullMarked
package dev.shardstore.contracts.version;

import org.jspecify.annotations.NullMarked;
