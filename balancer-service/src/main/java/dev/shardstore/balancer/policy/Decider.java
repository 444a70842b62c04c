package dev.shardstore.balancer.policy;

import java.util.List;
import java.util.Optional;

/**
 * One balancing rule applied to one collection: it looks at the collection's distribution and the shards still free this
 * round, and returns its decisions (yes with an action, no, or throttle), each with a reason. Deciders run in the
 * order of mongo/src/mongo/db/s/README.md "What happens during a balancer round" (see {@link BalancerPolicy}); a yes for a migration takes its two shards from the round.
 */
interface Decider {
    /** The name shown in decisions ({@code balancerPlan}, the actuator endpoint, {@code config.actionlog}). */
    String name();

    /** The decisions for {@code distribution}'s collection; never empty (a no says why nothing happens). */
    List<Decision> decide(Distribution distribution, Round round);

    /**
     * Whether {@code distribution}'s collection breaks this decider's rule, whatever a round could do about it now (no
     * shard free, only jumbo chunks): the reason a chunk would move for it, as {@code balancerCollectionStatus}'s
     * {@code firstComplianceViolation} names it; empty when the collection complies. The rule is the one
     * {@link #decide} acts on, not a copy.
     */
    Optional<MigrationReason> violation(Distribution distribution);
}
