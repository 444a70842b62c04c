package dev.shardstore.router.command;

import dev.shardstore.support.command.CommandRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.springframework.stereotype.Component;

/**
 * A client's command through the router's one {@link CommandRegistry} (DESIGN.md §6), timed as
 * {@code shardstore.router.command} with the tags {@code command} (the name, or {@code unknown} for a name no handler
 * serves, so clients cannot grow the tag's values), {@code outcome} ({@code ok}/{@code error}) and
 * {@code transport} (the front end: {@code rest} or {@code wire}). Every front end calls this, so a command behaves
 * and is measured the same whichever way it arrives.
 */
@Component
public class ClientCommands {
    /** The front end a command arrived through. */
    public enum Transport {
        /** {@code POST /v1/databases/{db}/command} and the resource endpoints on top of it. */
        REST,
        /** MongoDB's wire protocol (OP_MSG). */
        WIRE;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final CommandRegistry registry;
    private final MeterRegistry meters;

    public ClientCommands(CommandRegistry registry, MeterRegistry meters) {
        this.registry = registry;
        this.meters = meters;
    }

    /**
     * Runs {@code command} on {@code db}.
     *
     * @return the handler's reply ({@code ok: 1})
     * @throws dev.shardstore.contracts.error.CommandException whatever the registry or the handler throws
     */
    public BsonDocument run(Transport transport, String db, BsonDocument command) {
        String name = command.isEmpty() ? "(empty)" : command.getFirstKey();
        return timed(transport, registry.knows(name) ? name : "unknown", () -> registry.run(db, command));
    }

    /**
     * Times a command a front end answers itself (the wire protocol's connection handshake, {@code hello}) under the
     * same meter as the registry's commands.
     *
     * @param name the command's name, a fixed set chosen by the caller (never a client's arbitrary string)
     */
    public BsonDocument timed(Transport transport, String name, Supplier<BsonDocument> command) {
        Timer.Sample sample = Timer.start(meters);
        String outcome = "error";
        try {
            BsonDocument reply = command.get();
            outcome = "ok";
            return reply;
        } finally {
            sample.stop(meters.timer("shardstore.router.command", "command", name, "outcome", outcome, "transport", transport.tag()));
        }
    }
}
