/**
 * The balancer service: the Spring Boot application and its {@code shardstore.balancer.*} settings. Rounds read the
 * catalog from the config service and ask it to split, merge or move chunks; the service keeps no state of its own.
 */
@NullMarked
package dev.shardstore.balancer;

import org.jspecify.annotations.NullMarked;
