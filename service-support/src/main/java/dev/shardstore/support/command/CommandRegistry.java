package dev.shardstore.support.command;

import dev.shardstore.contracts.clock.WriteStageReadConcern;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.operation.Caller;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.support.security.CommandAuthorizer;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.bson.BsonDocument;

/**
 * Dispatches a command document to the {@link CommandHandler} named by its first key. One registry
 * serves every front end of a service (docs/architecture.md "The client API: REST and the wire protocol"). It creates each command's {@link OperationContext} once the
 * command's options are accepted, with its {@code maxTimeMS} ({@link MaxTimeMS}) as the operation's deadline, and
 * hands it to the handler. Before the handler runs, the {@link CommandAuthorizer} checks that the caller may run the
 * command (docs/architecture.md "Security"); a refused command has not started.
 */
public final class CommandRegistry {
    private final Map<String, CommandHandler> handlers = new HashMap<>();
    private final LongSupplier ticker;
    private final CommandAuthorizer authorizer;

    /**
     * A registry whose deadlines run on {@link System#nanoTime}.
     *
     * @throws IllegalStateException if two handlers claim the same name or alias
     */
    public CommandRegistry(List<CommandHandler> handlerBeans) {
        this(handlerBeans, System::nanoTime);
    }

    /**
     * A registry whose deadlines run on {@code ticker} (nanoseconds; a test's own counter in tests).
     *
     * @throws IllegalStateException if two handlers claim the same name or alias
     */
    public CommandRegistry(List<CommandHandler> handlerBeans, LongSupplier ticker) {
        this(handlerBeans, ticker, CommandAuthorizer.DISABLED);
    }

    /**
     * A registry whose deadlines run on {@code ticker} and whose commands {@code authorizer} checks first.
     *
     * @throws IllegalStateException if two handlers claim the same name or alias
     */
    public CommandRegistry(List<CommandHandler> handlerBeans, LongSupplier ticker, CommandAuthorizer authorizer) {
        this.ticker = ticker;
        this.authorizer = authorizer;
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
     * Runs {@code command} on {@code db} as a new operation of {@code caller}.
     *
     * @throws CommandException FailedToParse (9) for an empty command document, CommandNotFound (59)
     *                          for an unknown command name, a read concern a writing aggregate cannot run under
     *                          ({@link WriteStageReadConcern}), an option {@link CommandOptions} refuses, a bad
     *                          {@code maxTimeMS} ({@link MaxTimeMS#millisOf}), Unauthorized (13) when the caller may
     *                          not run it ({@link CommandAuthorizer#check}), or whatever the handler throws —
     *                          MaxTimeMSExpired (50) when it runs past its {@code maxTimeMS}
     */
    public BsonDocument run(Caller caller, String db, BsonDocument command) {
        CommandHandler handler = handler(caller, db, command);
        return handler.run(OperationContext.forCommand(caller, command, MaxTimeMS.millisOf(command), ticker), db, command);
    }

    /**
     * {@link #run(Caller, String, BsonDocument)} with the new operation's context passed through {@code decorate}
     * first (a router's transaction statement, which runs in its session's transaction).
     */
    public BsonDocument run(Caller caller, String db, BsonDocument command, UnaryOperator<OperationContext> decorate) {
        CommandHandler handler = handler(caller, db, command);
        return handler.run(decorate.apply(OperationContext.forCommand(caller, command, MaxTimeMS.millisOf(command), ticker)), db, command);
    }

    /**
     * Runs {@code command} on {@code db} as part of the operation {@code opCtx} (a router's {@code $out} writing its
     * results): the command's own {@code maxTimeMS}, if any, narrows the operation's limit and never extends it.
     *
     * @throws CommandException as {@link #run(Caller, String, BsonDocument)}
     */
    public BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
        CommandHandler handler = handler(opCtx.caller(), db, command);
        long maxTimeMs = MaxTimeMS.millisOf(command);
        OperationContext within = maxTimeMs == 0 ? opCtx : opCtx.withDeadline(opCtx.deadline().within(maxTimeMs * 1_000_000L));
        return handler.run(within, db, command);
    }

    /** The handler of {@code command}, once its options are accepted and {@code caller} may run it. */
    private CommandHandler handler(Caller caller, String db, BsonDocument command) {
        if (command.isEmpty()) {
            throw new CommandException(ErrorCode.FailedToParse, "empty command document: the first field must name the command");
        }
        String name = command.getFirstKey();
        CommandHandler handler = handlers.get(name);
        if (handler == null) {
            throw new CommandException(ErrorCode.CommandNotFound, "no such command: '" + name + "'");
        }
        WriteStageReadConcern.check(command); // before the table's general refusal of linearizable
        CommandOptions.check(db, command);
        authorizer.check(caller, db, command);
        return handler;
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
