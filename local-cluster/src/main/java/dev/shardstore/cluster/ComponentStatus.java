package dev.shardstore.cluster;

import java.util.OptionalLong;

/**
 * What {@code status} shows for one component.
 *
 * @param pid     the recorded process id, empty if it was never started
 * @param running whether that process still runs
 * @param health  its probe result (probed only while running)
 */
public record ComponentStatus(Component component, OptionalLong pid, boolean running, Health health) {}
