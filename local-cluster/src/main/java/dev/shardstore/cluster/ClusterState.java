package dev.shardstore.cluster;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code cluster.json} holds: the planned topology and the processes started for it, by
 * component name, in start order.
 */
record ClusterState(int shards, int routers, int portOffset, boolean console, Map<String, ProcessRecord> processes) {

    public ClusterState {
        processes = new LinkedHashMap<>(processes);
    }

    /** A state with no process started yet. */
    public static ClusterState planned(Topology topology) {
        return new ClusterState(topology.shards(), topology.routers(), topology.portOffset(), topology.hasConsole(), Map.of());
    }

    /** The topology this state was planned from. */
    public Topology topology() {
        return Topology.plan(shards, routers, portOffset, console);
    }

    /** This state with {@code record} added or replaced. */
    public ClusterState with(ProcessRecord record) {
        Map<String, ProcessRecord> copy = new LinkedHashMap<>(processes);
        copy.put(record.name(), record);
        return new ClusterState(shards, routers, portOffset, console, copy);
    }

    /** This state planned with {@code n} shards (a shard added to the running cluster). */
    public ClusterState withShards(int n) {
        return new ClusterState(n, routers, portOffset, console, processes);
    }

    /** The recorded processes that still run. */
    public List<ProcessRecord> runningProcesses() {
        return processes.values().stream().filter(ProcessRecord::running).toList();
    }
}
