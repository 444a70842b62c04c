/**
 * How the coordinator reaches its participants: the config service's resharding catalog commands and (to come) the
 * shards' donor and recipient commands.
 */
@NullMarked
package dev.shardstore.resharding.participants;

import org.jspecify.annotations.NullMarked;
