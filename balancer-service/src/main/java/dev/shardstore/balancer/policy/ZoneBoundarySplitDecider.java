package dev.shardstore.balancer.policy;

import dev.shardstore.contracts.bson.BsonOrder;
import dev.shardstore.contracts.sharding.Chunk;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.bson.BsonDocument;

/**
 * First step of a round: a chunk with a zone boundary strictly inside it is split there, so every chunk lies in one zone
 * (mongo/src/mongo/db/s/README.md "What happens during a balancer round": splits with new bounds equal to the zone boundaries). Splits take no
 * shard from the round; a collection with splits planned moves nothing in the same round (its chunks change first).
 */
final class ZoneBoundarySplitDecider implements Decider {
    static final String NAME = "zoneBoundarySplit";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<Decision> decide(Distribution distribution, Round round) {
        List<Decision> decisions = new ArrayList<>();
        for (Chunk chunk : distribution.collection().chunks()) {
            TreeSet<BsonDocument> points = boundariesInside(distribution, chunk);
            if (!points.isEmpty()) {
                decisions.add(Decision.yes(NAME, new BalancerAction.Split(distribution.namespace(), chunk.range(), chunk.shard(),
                        List.copyOf(points)), "chunk " + chunk.range() + " crosses " + points.size() + " zone boundar"
                        + (points.size() == 1 ? "y" : "ies")));
            }
        }
        if (decisions.isEmpty()) {
            decisions.add(Decision.no(NAME, distribution.namespace(), distribution.collection().zones().isEmpty()
                    ? "no zone ranges" : "every chunk lies inside one zone"));
        }
        return decisions;
    }

    /** A chunk across a zone boundary is a zone violation too (MongoDB's {@code balancerCollectionStatus}). */
    @Override
    public Optional<MigrationReason> violation(Distribution distribution) {
        return distribution.collection().chunks().stream().anyMatch(chunk -> !boundariesInside(distribution, chunk).isEmpty())
                ? Optional.of(MigrationReason.ZONE_VIOLATION) : Optional.empty();
    }

    /** The zone boundaries strictly inside {@code chunk}, in key order: where it must be split. */
    private static TreeSet<BsonDocument> boundariesInside(Distribution distribution, Chunk chunk) {
        TreeSet<BsonDocument> points = new TreeSet<>(BsonOrder::compare);
        for (ZoneRange zone : distribution.collection().zones()) {
            for (BsonDocument bound : List.of(zone.range().min(), zone.range().max())) {
                if (ZoneRange.strictlyInside(bound, chunk.range())) {
                    points.add(bound);
                }
            }
        }
        return points;
    }
}
