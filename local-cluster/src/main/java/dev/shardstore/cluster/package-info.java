/**
 * The local cluster launcher behind {@code ./cluster}: the topology of processes, their command lines, starting,
 * watching and stopping them, and the state directory that records what runs. Each service is its own OS process.
 */
@NullMarked
package dev.shardstore.cluster;

import org.jspecify.annotations.NullMarked;
