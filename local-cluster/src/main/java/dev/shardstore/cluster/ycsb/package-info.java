/**
 * The YCSB benchmark of {@code ./cluster ycsb}: bindings for the router's REST API, its wire protocol and the
 * direct-PostgreSQL baseline, YCSB's core workloads, and running YCSB's client and reading its figures.
 */
@NullMarked
package dev.shardstore.cluster.ycsb;

import org.jspecify.annotations.NullMarked;
