/**
 * The commands the resharding service runs: {@code reshardCollection} and {@code abortReshardCollection}, which the
 * routers forward here, and {@code /actuator/resharding}.
 */
@NullMarked
package dev.shardstore.resharding.command;

import org.jspecify.annotations.NullMarked;
