/**
 * The balancer's cluster-wide settings as value types: the {@code config.settings} documents {@code balancer},
 * {@code chunksize} and {@code automerge}, and the active window. The config service parses them when they change and the
 * balancer reads them at the start of each round, through the one parser here.
 */
@NullMarked
package dev.shardstore.contracts.balancer;

import org.jspecify.annotations.NullMarked;
