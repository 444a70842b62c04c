/**
 * The resharding coordinator (MongoDB's {@code ReshardingCoordinatorService}): the state machine of one
 * {@code reshardCollection}, its persisted state document ({@code config.reshardingOperations}, table
 * {@code resharding_operations}) and the calls it makes on the config service and the shards at each state
 * ({@link dev.shardstore.resharding.coordinator.ReshardingParticipants}).
 */
@NullMarked
package dev.shardstore.resharding.coordinator;

import org.jspecify.annotations.NullMarked;
