/**
 * The balancer's policy as a pure function of a snapshot of the cluster: the deciders (zone boundary splits, draining
 * shards, zone violations, imbalance, auto-merge) applied in MongoDB's order, and the plan of one round. Nothing here
 * reads the cluster or acts on it.
 */
@NullMarked
package dev.shardstore.balancer.policy;

import org.jspecify.annotations.NullMarked;
