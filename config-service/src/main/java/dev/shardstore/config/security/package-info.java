/**
 * {@code admin.system.users} and {@code admin.system.roles} in the catalog ({@link dev.shardstore.config.security.UserCatalog})
 * and the user and role management commands routers forward here, as mongos forwards them to the config server
 * ({@link dev.shardstore.config.security.UserManagementCommands}; docs/architecture.md "Security").
 */
@NullMarked
package dev.shardstore.config.security;

import org.jspecify.annotations.NullMarked;
