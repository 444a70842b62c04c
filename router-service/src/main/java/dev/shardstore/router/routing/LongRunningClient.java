package dev.shardstore.router.routing;

import dev.shardstore.contracts.clock.ClusterTimeGossip;
import dev.shardstore.router.RouterProperties;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.transport.http.CommandClient;
import dev.shardstore.transport.membership.ClusterKey;
import jakarta.annotation.PreDestroy;
import org.bson.BsonDocument;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * The router's transport for commands that answer only when a cluster operation is over: DDL coordinators
 * (drop, dropDatabase, movePrimary, shardCollection, ...), migrations ({@code moveChunk}/{@code moveRange}),
 * {@code cleanupOrphaned} and {@code balancerStop}. mongos waits for these as long as they run; a reply that is silent
 * for the ordinary peer timeout ({@code shardstore.peer-request-timeout}, 30 s) is normal for them (a drop waits for a
 * migration of its collection to end), so their silence may last {@code shardstore.router.migration-timeout} (1 h).
 * Same pooled transport, cluster-time gossip and proof of membership (the cluster key, when there is one) as the
 * ordinary peer client.
 */
@Component
public class LongRunningClient {
    private final CommandClient client;

    public LongRunningClient(ServiceSupportProperties support, RouterProperties properties, ClusterTimeGossip gossip,
            ObjectProvider<ClusterKey> clusterKey) {
        this.client = new CommandClient(support.peerConnectTimeout(), properties.migrationTimeout(), gossip, clusterKey.getIfAvailable());
    }

    /**
     * Runs {@code command} on {@code db} at the peer and returns its successful reply.
     *
     * @throws dev.shardstore.contracts.error.CommandException the peer's error, or HostUnreachable/NetworkTimeout
     */
    public BsonDocument runChecked(String peerName, String baseUrl, String db, BsonDocument command) {
        return client.runChecked(peerName, baseUrl, db, command);
    }

    @PreDestroy
    void close() {
        client.close();
    }
}
