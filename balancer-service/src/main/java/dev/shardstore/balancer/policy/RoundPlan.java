package dev.shardstore.balancer.policy;

import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;

/**
 * The decisions of one balancer round, in the order the deciders made them (what {@code balancerPlan} shows and a round
 * carries out).
 *
 * @param decisions every decision, yes / no / throttle (copied)
 */
public record RoundPlan(List<Decision> decisions) {
    public RoundPlan {
        decisions = List.copyOf(Objects.requireNonNull(decisions, "decisions"));
    }

    /** The zone-boundary splits, run before any migration. */
    public List<BalancerAction.Split> splits() {
        return decisions.stream().map(Decision::action).filter(BalancerAction.Split.class::isInstance)
                .map(BalancerAction.Split.class::cast).toList();
    }

    /** The auto-merger's merges, on shards no migration of this round takes. */
    public List<BalancerAction.Merge> merges() {
        return decisions.stream().map(Decision::action).filter(BalancerAction.Merge.class::isInstance)
                .map(BalancerAction.Merge.class::cast).toList();
    }

    /** The migrations, on pairwise disjoint shards, so they may all run at once. */
    public List<BalancerAction.Migration> migrations() {
        return decisions.stream().map(Decision::action).filter(BalancerAction.Migration.class::isInstance)
                .map(BalancerAction.Migration.class::cast).toList();
    }

    /** {@code [decision, ...]} as {@link Decision#toBson()}. */
    public BsonArray toBson() {
        return new BsonArray(decisions.stream().map(Decision::toBson).map(BsonDocument.class::cast).toList());
    }
}
