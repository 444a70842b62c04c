package dev.shardstore.balancer.round;

import dev.shardstore.balancer.policy.RoundPlan;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;

/**
 * One finished balancer round, as {@code /actuator/balancer} shows it and {@code config.actionlog}'s {@code balancer.round}
 * entry summarises it.
 *
 * @param number   the round's number in the cluster (counted by the config service, 1-based; survives restarts)
 * @param started  when it started
 * @param millis   how long it took, in milliseconds
 * @param plan     the decisions (empty when the snapshot could not be read)
 * @param outcomes what became of each split and migration started (copied)
 * @param error    why the round failed before deciding, if it did
 */
public record RoundReport(long number, Instant started, long millis, RoundPlan plan, List<MigrationOutcome> outcomes, @Nullable String error) {
    public RoundReport {
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(plan, "plan");
        outcomes = List.copyOf(Objects.requireNonNull(outcomes, "outcomes"));
    }

    /** Migrations that committed. */
    public long chunksMoved() {
        return outcomes.stream().filter(o -> o.ok() && o.action() instanceof dev.shardstore.balancer.policy.BalancerAction.Migration).count();
    }

    /** Whether the round or one of its actions failed. */
    public boolean errorOccurred() {
        return error != null || outcomes.stream().anyMatch(o -> !o.ok());
    }

    /** MongoDB's {@code balancer.round} details: {@code {executionTimeMillis, errorOccurred, candidateChunks, chunksMoved, errmsg?}}. */
    public BsonDocument actionLogDetails() {
        BsonDocument details = new BsonDocument("executionTimeMillis", new BsonInt64(millis))
                .append("errorOccurred", BsonBoolean.valueOf(errorOccurred()))
                .append("candidateChunks", new BsonInt32(plan.migrations().size()))
                .append("chunksMoved", new BsonInt64(chunksMoved()));
        if (error != null) {
            details.append("errmsg", new BsonString(error));
        }
        return details;
    }

    /** Everything: {@code {round, started, millis, decisions, outcomes, ...actionLogDetails}}. */
    public BsonDocument toBson() {
        BsonDocument doc = new BsonDocument("round", new BsonInt64(number)).append("started", new BsonDateTime(started.toEpochMilli()))
                .append("decisions", plan.toBson())
                .append("outcomes", new BsonArray(outcomes.stream().map(MigrationOutcome::toBson).map(d -> (org.bson.BsonValue) d).toList()));
        doc.putAll(actionLogDetails());
        return doc;
    }
}
