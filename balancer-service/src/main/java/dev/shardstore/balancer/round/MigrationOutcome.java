package dev.shardstore.balancer.round;

import dev.shardstore.balancer.policy.BalancerAction;
import java.util.Objects;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;

/**
 * What became of one action a round started.
 *
 * @param action   the split or migration
 * @param ok       whether the config service reported success
 * @param millis   how long it took, in milliseconds
 * @param errmsg   the config service's error when not ok
 */
public record MigrationOutcome(BalancerAction action, boolean ok, long millis, @Nullable String errmsg) {
    public MigrationOutcome {
        Objects.requireNonNull(action, "action");
        if (ok == (errmsg != null)) {
            throw new IllegalArgumentException("an outcome has an errmsg exactly when it failed");
        }
    }

    /** {@code {action, ok, millis, errmsg?}}. */
    public BsonDocument toBson() {
        BsonDocument doc = new BsonDocument("action", action.toBson()).append("ok", BsonBoolean.valueOf(ok)).append("millis", new BsonInt64(millis));
        if (errmsg != null) {
            doc.append("errmsg", new BsonString(errmsg));
        }
        return doc;
    }
}
