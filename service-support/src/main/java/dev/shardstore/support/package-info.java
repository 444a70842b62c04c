/**
 * The Spring Boot auto-configuration every service shares, and the {@code shardstore.*} settings it reads. The
 * packages below hold what it wires: the command front ends, the web error handling, health, fail points, the
 * signing-key cache and the logical session cache.
 */
@NullMarked
package dev.shardstore.support;

import org.jspecify.annotations.NullMarked;
