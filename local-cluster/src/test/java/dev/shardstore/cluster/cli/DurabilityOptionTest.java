package dev.shardstore.cluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.infra.PostgresDurability;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --durability} of {@code ./cluster up} and {@code ./cluster demo}: durable unless {@code fast} is asked for. */
class DurabilityOptionTest {

    private static PostgresDurability parsed(String... args) {
        CommandLine.ParseResult result = ClusterCli.commandLine().parseArgs(args);
        Object command = result.subcommand().commandSpec().userObject();
        return command instanceof UpCommand up ? up.durability.durability : ((DemoCommand) command).durability.durability;
    }

    @Test
    void upAndDemoAreDurableByDefault() {
        assertThat(parsed("up")).isEqualTo(PostgresDurability.DURABLE);
        assertThat(parsed("demo")).isEqualTo(PostgresDurability.DURABLE);
    }

    @Test
    void theFastSettingIsAskedForByName() {
        assertThat(parsed("up", "--durability", "fast")).isEqualTo(PostgresDurability.FAST);
        assertThat(parsed("up", "--durability=durable")).isEqualTo(PostgresDurability.DURABLE);
        assertThat(parsed("demo", "--durability", "FAST")).isEqualTo(PostgresDurability.FAST);
    }

    @Test
    void anUnknownValueIsAUsageErrorNamingBoth() {
        StringWriter out = new StringWriter();
        CommandLine commandLine = ClusterCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(out, true));
        assertThat(commandLine.execute("up", "--durability", "off")).isEqualTo(2);
        assertThat(out.toString()).contains("unknown PostgreSQL durability 'off': use durable or fast");
    }

    @Test
    void theHelpSaysTheFastSettingIsNotCrashSafe() {
        StringWriter out = new StringWriter();
        CommandLine commandLine = ClusterCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        assertThat(commandLine.execute("up", "--help")).isZero();
        assertThat(out.toString()).contains("--durability").contains("not crash-safe");
    }
}
