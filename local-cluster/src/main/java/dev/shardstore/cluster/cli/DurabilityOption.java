package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.holder.DurabilityConverter;
import dev.shardstore.infra.PostgresDurability;
import picocli.CommandLine.Option;

/**
 * {@code --durability durable|fast}: how the cluster's PostgreSQL commits. {@code durable}, the default, flushes each
 * commit before it is acknowledged; {@code fast} does not and is not crash-safe (docs/architecture.md "Durability").
 */
final class DurabilityOption {
    @Option(names = "--durability", paramLabel = "durable|fast", defaultValue = "durable", converter = DurabilityConverter.class,
            description = "durable: PostgreSQL flushes every commit (fsync, synchronous_commit on; the default);"
                    + " fast: no flushes, for tests and benchmarks, not crash-safe")
    PostgresDurability durability = PostgresDurability.DURABLE;
}
