package dev.shardstore.cluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./cluster add-shard} without a running cluster, and its options in the help. */
class AddShardCommandTest {
    @TempDir
    Path home;

    private static String cli(String... args) {
        StringWriter out = new StringWriter();
        var commandLine = ClusterCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(out, true));
        return commandLine.execute(args) + "\n" + out;
    }

    @Test
    void withoutARunningClusterItSaysSoAndStartsNothing() throws Exception {
        assertThat(cli("add-shard", "--home", home.toString())).startsWith("1\n").contains("no running cluster in " + home)
                .contains("./cluster up");
        try (var files = Files.list(home)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void theHelpNamesItsOptions() {
        assertThat(cli("add-shard", "--help")).startsWith("0\n").contains("--no-watch").contains("--timeout");
    }
}
