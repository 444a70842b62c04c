/**
 * The router's client authentication (docs/architecture.md "Security"): the users and roles it reads from the config
 * service ({@link dev.shardstore.router.security.UserDirectory}), one connection's authentication state and SASL
 * conversations ({@link dev.shardstore.router.security.ConnectionAuthentication}), the user and role management
 * commands it forwards to the config service, and HTTP Basic and bearer tokens on REST.
 */
@NullMarked
package dev.shardstore.router.security;

import org.jspecify.annotations.NullMarked;
