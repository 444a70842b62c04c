package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.LocalCluster;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code stop NAME}, {@code start NAME} and {@code kill NAME}: one component of a running cluster, as mlaunch's
 * {@code stop}/{@code start}/{@code kill} do, for maintenance and fault drills (kill is SIGKILL: a crash).
 */
final class ComponentCommands {
    private ComponentCommands() {}

    /** What the three commands share: the home, the component name, and one action on the recorded cluster. */
    abstract static class OnComponent implements Callable<Integer> {
        @Mixin
        HomeOption home;

        @Parameters(paramLabel = "NAME", description = "a component: postgres, kafka, config, shardN, routerN, balancer, resharding, session")
        String name;

        @Spec
        CommandSpec spec;

        private final BiConsumer<LocalCluster, String> action;
        private final String done;

        OnComponent(BiConsumer<LocalCluster, String> action, String done) {
            this.action = action;
            this.done = done;
        }

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            LocalCluster cluster = home.attach(out).orElseThrow(() ->
                    new IllegalStateException("no cluster is recorded in " + home.dir() + "; start one with ./cluster up"));
            action.accept(cluster, name);
            out.println(name + " " + done);
            return 0;
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true, description = "Stop one component (SIGTERM, SIGKILL after 30 s).")
    static final class Stop extends OnComponent {
        Stop() {
            super(LocalCluster::stopService, "stopped");
        }
    }

    @Command(name = "start", mixinStandardHelpOptions = true, description = "Start a stopped or killed component again and wait until it is ready.")
    static final class Start extends OnComponent {
        Start() {
            super(LocalCluster::startService, "is up");
        }
    }

    @Command(name = "kill", mixinStandardHelpOptions = true, description = "Kill one component with SIGKILL, as a crash would.")
    static final class Kill extends OnComponent {
        Kill() {
            super(LocalCluster::killService, "killed");
        }
    }
}
