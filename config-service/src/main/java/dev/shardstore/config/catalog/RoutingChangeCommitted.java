package dev.shardstore.config.catalog;

import java.util.List;
import java.util.Objects;

/**
 * Published (in-process) with every chunk commit, delivered after the transaction commits: the shards whose chunks
 * changed should refresh their filtering metadata now rather than on their next version check.
 *
 * @param namespace {@code db.coll}
 * @param shards    the shards whose chunks changed (copied)
 */
public record RoutingChangeCommitted(String namespace, List<String> shards) {
    public RoutingChangeCommitted {
        Objects.requireNonNull(namespace, "namespace");
        shards = List.copyOf(shards);
    }
}
