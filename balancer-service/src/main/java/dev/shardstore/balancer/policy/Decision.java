package dev.shardstore.balancer.policy;

import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;

/**
 * One decider's conclusion about one collection (or the whole cluster, namespace {@code ""}), with its reason.
 *
 * @param decider   the decider's name ({@code zoneBoundarySplit}, {@code draining}, {@code zoneViolation}, ...)
 * @param verdict   yes / no / throttle
 * @param namespace the collection, or {@code ""} for a cluster-wide decision
 * @param action    the planned action, exactly when the verdict is {@link Verdict#YES}
 * @param reason    why, for a person reading {@code balancerPlan}
 */
public record Decision(String decider, Verdict verdict, String namespace, @Nullable BalancerAction action, String reason) {
    public Decision {
        Objects.requireNonNull(decider, "decider");
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(reason, "reason");
        if ((verdict == Verdict.YES) != (action != null)) {
            throw new IllegalArgumentException("a decision has an action exactly when its verdict is yes: " + verdict + " " + action);
        }
    }

    static Decision yes(String decider, BalancerAction action, String reason) {
        return new Decision(decider, Verdict.YES, action.namespace(), action, reason);
    }

    static Decision no(String decider, String namespace, String reason) {
        return new Decision(decider, Verdict.NO, namespace, null, reason);
    }

    static Decision throttle(String decider, String namespace, String reason) {
        return new Decision(decider, Verdict.THROTTLE, namespace, null, reason);
    }

    /** {@code {decider, verdict, ns, reason, action?}}. */
    public BsonDocument toBson() {
        BsonDocument doc = new BsonDocument("decider", new BsonString(decider)).append("verdict", new BsonString(verdict.value()))
                .append("ns", new BsonString(namespace)).append("reason", new BsonString(reason));
        if (action != null) {
            doc.append("action", action.toBson());
        }
        return doc;
    }
}
