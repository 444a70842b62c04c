package dev.shardstore.router.peer;

import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.stereotype.Component;

/**
 * {@code GET /actuator/peers}: each peer's circuit breaker (state, failure and slow-call rates, counts) and bulkhead
 * (free and maximum places), and its last transport failure; shapes in {@link PeerClient#states}.
 */
@Component
@Endpoint(id = "peers")
public class PeersEndpoint {
    private final PeerClient peers;

    public PeersEndpoint(PeerClient peers) {
        this.peers = peers;
    }

    @ReadOperation
    public Map<String, Map<String, Object>> peers() {
        return peers.states();
    }
}
