package dev.shardstore.balancer.policy;

import java.util.List;

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
}
