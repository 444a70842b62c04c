/**
 * Cluster time: the process's hybrid logical clock, the gossip hook every message passes through, the signing of cluster
 * times with the keys of {@code admin.system.keys}, and the read concern that waits for a cluster time. The services
 * supply the keys and the transport; the rules live here.
 */
@NullMarked
package dev.shardstore.contracts.clock;

import org.jspecify.annotations.NullMarked;
