package dev.shardstore.support.command;

import dev.shardstore.contracts.clock.WriteStageReadConcern;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.operation.Caller;
import dev.shardstore.support.operation.OperationContext;
import dev.shardstore.support.operation.OperationRegistry;
import dev.shardstore.support.operation.RunningOperation;
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
    private final OperationRegistry operations;

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
        this(handlerBeans, CommandAuthorizer.DISABLED, new OperationRegistry(ticker));
    }

    /**
     * A registry whose commands {@code authorizer} checks first and {@code operations} lists while they run; deadlines
     * and running times are on the operation registry's ticker.
     *
     * @throws IllegalStateException if two handlers claim the same name or alias
     */
    public CommandRegistry(List<CommandHandler> handlerBeans, CommandAuthorizer authorizer, OperationRegistry operations) {
        this.ticker = operations.ticker();
        this.authorizer = authorizer;
        this.operations = operations;
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
        return run(caller, db, command, UnaryOperator.identity());
    }

    /**
     * {@link #run(Caller, String, BsonDocument)} with the new operation's context passed through {@code decorate}
     * first (a router's transaction statement, which runs in its session's transaction).
     */
    public BsonDocument run(Caller caller, String db, BsonDocument command, UnaryOperator<OperationContext> decorate) {
        CommandHandler handler = handler(caller, db, command);
        OperationContext opCtx = decorate.apply(OperationContext.forCommand(caller, command, MaxTimeMS.millisOf(command), ticker));
        return registered(handler, opCtx, db, command);
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
        return registered(handler, within, db, command);
    }

    /**
     * Runs the handler as a registered operation: listed from before it starts until it has returned or thrown. A
     * nested command's operation has the one it runs for as its parent, so that killing that one interrupts it too.
     */
    private BsonDocument registered(CommandHandler handler, OperationContext opCtx, String db, BsonDocument command) {
        RunningOperation op = operations.register(opCtx.caller(), db, command, opCtx.operation().orElse(null));
        try {
            return handler.run(opCtx.withOperation(op), db, command);
        } finally {
            operations.deregister(op);
        }
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
