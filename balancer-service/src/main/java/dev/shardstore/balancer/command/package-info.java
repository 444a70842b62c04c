/**
 * MongoDB's balancer commands ({@code balancerStart}, {@code balancerStatus}, {@code balancerCollectionStatus}, ...), which
 * routers forward to this service.
 */
@NullMarked
package dev.shardstore.balancer.command;

import org.jspecify.annotations.NullMarked;
