package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.StartupException;
import dev.shardstore.cluster.load.LoadException;
import dev.shardstore.cluster.router.RouterException;
import dev.shardstore.contracts.error.CommandException;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ./cluster} command line: {@code up}, {@code down}, {@code status}, {@code logs},
 * {@code load}, {@code demo}, {@code move} (moveChunk with progress), {@code balance} and {@code add-shard} (the balancer at work), {@code ycsb} (the YCSB benchmark), and {@code stop}/{@code start}/{@code kill} of one component. Expected failures (a missing file, a port in use, a component that
 * does not start, an unreachable router, an argument the contracts reject, such as an invalid {@code --ns}: a
 * {@link CommandException}) print one {@code error:} message and exit with status 1;
 * anything else prints its stack trace.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = "Runs a local shardstore cluster: embedded PostgreSQL, an embedded Kafka broker and every service, each as its own process.",
        subcommands = {UpCommand.class, DownCommand.class, StatusCommand.class, LogsCommand.class, LoadCommand.class, AddShardCommand.class,
                DemoCommand.class, MoveCommand.class, ReshardCommand.class, YcsbCommand.class, BalanceCommand.class, ComponentCommands.Stop.class, ComponentCommands.Start.class, ComponentCommands.Kill.class,
                CommandLine.HelpCommand.class})
public final class ClusterCli {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, for tests. */
    public static CommandLine commandLine() {
        return new CommandLine(new ClusterCli()).setExecutionExceptionHandler((e, cmd, parseResult) -> {
            if (isExpected(e)) {
                cmd.getErr().println("error: " + e.getMessage());
                return 1;
            }
            throw e;
        });
    }

    private static boolean isExpected(Exception e) {
        return e instanceof IllegalArgumentException || e instanceof IllegalStateException || e instanceof StartupException
                || e instanceof CommandException || e instanceof RouterException || e instanceof LoadException || e instanceof UncheckedIOException;
    }
}
