package dev.shardstore.infra;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips the run's tests, with a message that says why, when they were asked to use Testcontainers
 * ({@code -Dshardstore.infra=testcontainers}, the Maven profile {@code testcontainers}) and no Docker engine answers.
 * The profile registers it through JUnit's extension auto-detection; without the profile it is not loaded.
 */
public final class DockerRequiredForContainers implements ExecutionCondition {
    private static volatile @Nullable Boolean dockerAvailable;

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (!EmbeddedInfra.containersRequested()) {
            return ConditionEvaluationResult.enabled("embedded PostgreSQL and Kafka");
        }
        Boolean available = dockerAvailable;
        if (available == null) {
            available = ContainerBackend.dockerAvailable();
            dockerAvailable = available;
        }
        return available
                ? ConditionEvaluationResult.enabled("Testcontainers' PostgreSQL and Kafka")
                : ConditionEvaluationResult.disabled("skipped: the testcontainers profile runs the tests against Testcontainers' "
                        + "PostgreSQL and Kafka, and no Docker engine answers on this machine");
    }
}
