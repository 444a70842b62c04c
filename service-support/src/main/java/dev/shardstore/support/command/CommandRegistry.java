package dev.shardstore.support.command;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;

/**
 * Dispatches a command document to the {@link CommandHandler} named by its first key. One registry
 * serves every front end of a service (docs/architecture.md "The client API: REST and the wire protocol"). The handler runs under the command's {@code maxTimeMS}
 * ({@link OperationDeadline}).
 */
public final class CommandRegistry {
    private final Map<String, CommandHandler> handlers = new HashMap<>();

    /**
     * @throws IllegalStateException if two handlers claim the same name or alias
     */
    public CommandRegistry(List<CommandHandler> handlerBeans) {
        for (CommandHandler handler : handlerBeans) {
            register(handler.name(), handler);
            handler.aliases().forEach(alias -> register(alias, handler));
        }
    }

    private void register(String name, CommandHandler handler) {
        CommandHandler previous = handlers.putIfAbsent(name, handler);
        if (previous != null) {
            throw new IllegalStateException("command '" + name + "' is claimed by both "
                    + previous.getClass().getName() + " and " + handler.getClass().getName());
        }
    }

    /**
     * Runs {@code command} on {@code db}.
     *
     * @throws CommandException FailedToParse (9) for an empty command document, CommandNotFound (59)
     *                          for an unknown command name, an option {@link CommandOptions} refuses, a bad
     *                          {@code maxTimeMS} ({@link OperationDeadline#millisOf}), or whatever the handler throws —
     *                          MaxTimeMSExpired (50) when it runs past its {@code maxTimeMS}
     */
    public BsonDocument run(String db, BsonDocument command) {
        if (command.isEmpty()) {
            throw new CommandException(ErrorCode.FailedToParse, "empty command document: the first field must name the command");
        }
        String name = command.getFirstKey();
        CommandHandler handler = handlers.get(name);
        if (handler == null) {
            throw new CommandException(ErrorCode.CommandNotFound, "no such command: '" + name + "'");
        }
        CommandOptions.check(db, command);
        long maxTimeMs = OperationDeadline.millisOf(command);
        return maxTimeMs == 0 ? handler.run(db, command)
                : OperationDeadline.within(TimeUnit.MILLISECONDS.toNanos(maxTimeMs), () -> handler.run(db, command));
    }

    /** Every name and alias a handler serves, sorted. */
    public SortedSet<String> names() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(handlers.keySet()));
    }

    /** True when a handler serves {@code name} (a name or an alias). */
    public boolean knows(String name) {
        return handlers.containsKey(name);
    }
}
