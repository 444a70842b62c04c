package dev.shardstore.balancer.round;

import dev.shardstore.contracts.bson.ExtendedJson;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.Document;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.stereotype.Component;

/**
 * {@code /actuator/balancer}: {@code {inBalancerRound, numBalancerRounds (the last round number this process knows), rounds: [...]}} with the last rounds newest first
 * (duration, decisions with their reasons, the migrations started and their outcome), as relaxed Extended JSON.
 */
@Component
@Endpoint(id = "balancer")
public class BalancerEndpoint {
    private final Balancer balancer;

    public BalancerEndpoint(Balancer balancer) {
        this.balancer = balancer;
    }

    @ReadOperation
    public Map<String, Object> rounds() {
        return Map.of("inBalancerRound", balancer.inRound(), "numBalancerRounds", balancer.lastRoundNumber(),
                "rounds", Document.parse(ExtendedJson.toJson(new BsonDocument("r", balancer.recentRounds()))).get("r"));
    }
}
