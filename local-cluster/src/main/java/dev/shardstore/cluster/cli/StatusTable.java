package dev.shardstore.cluster.cli;

import dev.shardstore.cluster.ComponentStatus;
import java.io.PrintWriter;
import java.util.List;

/** Prints component statuses as an aligned table. */
final class StatusTable {
    private StatusTable() {}

    static void print(List<ComponentStatus> statuses, PrintWriter out) {
        String format = "%-11s %-8s %-8s %-6s %s%n";
        out.printf(format, "COMPONENT", "PID", "RUNNING", "PORT", "HEALTH");
        for (ComponentStatus s : statuses) {
            out.printf(format, s.component().name(),
                    s.pid().isPresent() ? Long.toString(s.pid().getAsLong()) : "-",
                    s.running() ? "yes" : "no",
                    s.component().port(),
                    s.health().detail());
        }
        out.flush();
    }
}
