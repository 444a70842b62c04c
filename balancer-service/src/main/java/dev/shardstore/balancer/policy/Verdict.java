package dev.shardstore.balancer.policy;

/** What a decider concluded for a collection: act, nothing to do, or something to do that must wait. */
public enum Verdict {
    /** An action (a split or a migration) is planned for this round. */
    YES,
    /** Nothing to do: balanced, disabled, or impossible (jumbo only, no eligible recipient). */
    NO,
    /** Something should happen but cannot this round (its shards already take part in a migration). */
    THROTTLE;

    /** The lower-case name used in replies ({@code balancerPlan}, the actuator endpoint, the action log). */
    public String value() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
