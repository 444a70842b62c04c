package dev.shardstore.cluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;

/** {@code ./cluster up --set-parameter NAME=VALUE}, repeatable: the server parameters every service starts with. */
class SetParameterOptionTest {
    private static Map<String, String> parsed(String... args) {
        CommandLine.ParseResult result = ClusterCli.commandLine().parseArgs(args);
        return ((UpCommand) result.subcommand().commandSpec().userObject()).serverParameters;
    }

    @Test
    void eachOccurrenceAddsOneParameterAndNoneIsTheDefaults() {
        assertThat(parsed("up")).isEmpty();
        assertThat(parsed("up", "--set-parameter", "internalQueryMaxBlockingSortMemoryUsageBytes=33554432",
                "--set-parameter=allowDiskUseByDefault=false"))
                .containsExactly(Map.entry("internalQueryMaxBlockingSortMemoryUsageBytes", "33554432"), Map.entry("allowDiskUseByDefault", "false"));
    }
}
