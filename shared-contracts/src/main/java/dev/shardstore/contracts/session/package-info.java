/**
 * Logical sessions and retryable writes as value types: the session id ({@code lsid}), a command's session fields
 * ({@code txnNumber}, statement ids) and the commands through which nodes sync their session caches with the session
 * service.
 */
@NullMarked
package dev.shardstore.contracts.session;

import org.jspecify.annotations.NullMarked;
