/**
 * Client authentication and authorization (docs/architecture.md "Security"): MongoDB's actions, resources,
 * privileges and built-in roles ({@link dev.shardstore.support.security.BuiltinRoles}), the one table from command to
 * the privileges it needs ({@link dev.shardstore.support.security.CommandPrivileges}), the principal an operation runs
 * for ({@link dev.shardstore.support.security.Principal}) and the check {@link dev.shardstore.support.command.CommandRegistry}
 * makes before every command ({@link dev.shardstore.support.security.CommandAuthorizer}); SCRAM credentials and the
 * server side of the SCRAM conversation ({@link dev.shardstore.support.security.ScramServer}).
 */
@NullMarked
package dev.shardstore.support.security;

import org.jspecify.annotations.NullMarked;
