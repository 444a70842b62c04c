package dev.shardstore.cluster.it;

import dev.shardstore.cluster.LocalCluster;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;

/**
 * {@code configureFailPoint} / {@code waitForFailPoint} on a cluster's services (they run with
 * {@code shardstore.test-commands.enabled=true}); the fault tests' way to stop or crash a process at a named step.
 */
final class FailPointClient {
    private final LocalCluster cluster;

    FailPointClient(LocalCluster cluster) {
        this.cluster = cluster;
    }

    /**
     * Arms {@code name} on {@code service} for its next entry; {@code action} is {@code crash}, {@code pause} or
     * {@code error}. Returns how often the point was entered before, for {@link #waitFor}.
     */
    long configure(String service, String name, String action) {
        return ItSupport.onService(cluster, service, "admin", new BsonDocument("configureFailPoint", new BsonString(name))
                .append("mode", new BsonDocument("times", new BsonInt32(1))).append("data", new BsonDocument("action", new BsonString(action))))
                .getNumber("count").longValue();
    }

    /** Turns {@code name} off on {@code service} (a paused thread goes on). */
    void disable(String service, String name) {
        ItSupport.onService(cluster, service, "admin", new BsonDocument("configureFailPoint", new BsonString(name))
                .append("mode", new BsonString("off")));
    }

    /** Returns once {@code name} on {@code service} has been entered {@code timesEntered} times (at most 60 s). */
    void waitFor(String service, String name, long timesEntered) {
        ItSupport.onService(cluster, service, "admin", new BsonDocument("waitForFailPoint", new BsonString(name))
                .append("timesEntered", new BsonInt64(timesEntered)).append("maxTimeMS", new BsonInt64(60_000)));
    }
}
