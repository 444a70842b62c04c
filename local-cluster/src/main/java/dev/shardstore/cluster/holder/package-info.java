/**
 * The processes that hold the local cluster's PostgreSQL server and Kafka broker: each starts its server on a fixed
 * port, announces it with a ready file, and stops it when told to.
 */
@NullMarked
package dev.shardstore.cluster.holder;

import org.jspecify.annotations.NullMarked;
