/**
 * The cluster side of security (docs/architecture.md "Security", "Inside the cluster"): the settings of the cluster key
 * ({@code shardstore.security.*}, MongoDB's {@code security.keyFile}) and of the listeners' addresses
 * ({@code shardstore.net.*}, MongoDB's {@code net.bindIp}). The proofs themselves are the {@code transport} module's
 * {@code membership} package.
 */
@NullMarked
package dev.shardstore.support.membership;

import org.jspecify.annotations.NullMarked;
