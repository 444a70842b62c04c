/**
 * The balancer thread: it runs a round at each interval (read, decide, carry the plan out through the config service)
 * and reports the rounds on {@code /actuator/balancer}.
 */
@NullMarked
package dev.shardstore.balancer.round;

import org.jspecify.annotations.NullMarked;
