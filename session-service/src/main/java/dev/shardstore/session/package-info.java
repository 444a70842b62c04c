/**
 * The session service: the Spring Boot application that owns the sessions collection, and its
 * {@code shardstore.sessions.*} settings.
 */
@NullMarked
package dev.shardstore.session;

import org.jspecify.annotations.NullMarked;
