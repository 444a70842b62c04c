/**
 * The generic part of the services' coordinators (MongoDB's {@code ShardingDDLCoordinatorService}): at most one
 * operation per key runs in a process, and an identical request joins it. The config service's DDL coordinators and the
 * resharding coordinator both run their operations through {@link dev.shardstore.support.coordinator.KeyedOperations}.
 */
@NullMarked
package dev.shardstore.support.coordinator;

import org.jspecify.annotations.NullMarked;
