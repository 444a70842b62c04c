/**
 * Internal membership authentication (MongoDB's keyFile, docs/architecture.md "Security", "Inside the cluster"): the
 * cluster key every service holds, the short-lived token an HTTP request to {@code /internal} carries, and the
 * challenge–response a command-port connection starts with. The key never travels; only HMACs of it do.
 */
@NullMarked
package dev.shardstore.transport.membership;

import org.jspecify.annotations.NullMarked;
