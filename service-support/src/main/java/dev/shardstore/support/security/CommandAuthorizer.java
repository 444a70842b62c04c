package dev.shardstore.support.security;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.support.operation.Caller;
import java.util.List;
import java.util.Optional;
import org.bson.BsonDocument;

/**
 * The authorization check {@link dev.shardstore.support.command.CommandRegistry} makes before every command
 * (docs/architecture.md "Security"): the privileges {@link CommandPrivileges} says the command needs, against those of
 * the caller's {@link Principal}. A refused command has not started, so it changed nothing. Cluster members
 * ({@link Principal#SYSTEM}: peers and the process's own work) hold every privilege.
 *
 * <p>Only enforced when authorization is on ({@code shardstore.security.authorization=enabled}); {@link #DISABLED}
 * lets everything through, as MongoDB without {@code security.authorization}.
 *
 * <p>Errors, Unauthorized (13) as MongoDB words them: "command find requires authentication" for a caller that is not
 * authenticated; "not authorized on shop to execute command { insert: "orders" }" for one that is, followed by the
 * action and the resource it lacks; the localhost exception's "... : only createUser is allowed before the first user
 * exists".
 */
public final class CommandAuthorizer {
    /** Lets every command through (authorization off). */
    public static final CommandAuthorizer DISABLED = new CommandAuthorizer(false);
    /** Checks every command. */
    public static final CommandAuthorizer ENABLED = new CommandAuthorizer(true);

    private final boolean enabled;

    private CommandAuthorizer(boolean enabled) {
        this.enabled = enabled;
    }

    /** {@link #ENABLED} or {@link #DISABLED}. */
    public static CommandAuthorizer of(boolean enabled) {
        return enabled ? ENABLED : DISABLED;
    }

    /** True when commands are checked. */
    public boolean enabled() {
        return enabled;
    }

    /**
     * Refuses {@code command} on {@code db} unless {@code caller} holds every privilege it needs.
     *
     * @throws CommandException Unauthorized (13), see the class comment
     */
    public void check(Caller caller, String db, BsonDocument command) {
        if (!enabled) {
            return;
        }
        Principal principal = caller.principal();
        if (principal.kind() == Principal.Kind.SYSTEM) {
            return;
        }
        String name = command.isEmpty() ? "" : command.getFirstKey();
        Optional<List<CommandPrivileges.Required>> needed = CommandPrivileges.lookup(db, command);
        if (needed.isPresent() && needed.get().isEmpty()) {
            return;
        }
        if (!principal.authenticated() && principal.kind() != Principal.Kind.LOCALHOST_EXCEPTION) {
            throw new CommandException(ErrorCode.Unauthorized, "command " + name + " requires authentication");
        }
        if (needed.isEmpty()) {
            throw new CommandException(ErrorCode.Unauthorized, notAuthorized(db, command) + ": the command is not in the privilege table");
        }
        for (CommandPrivileges.Required required : needed.get()) {
            if (!principal.isAuthorized(required.resource(), required.action())) {
                String why = principal.kind() == Principal.Kind.LOCALHOST_EXCEPTION
                        ? ": only createUser is allowed through the localhost exception, before the first user exists"
                        : ": needs action " + required;
                throw new CommandException(ErrorCode.Unauthorized, notAuthorized(db, command) + why);
            }
        }
    }

    /** MongoDB's "not authorized on db to execute command { name: value }" (the first field only: no documents in messages). */
    private static String notAuthorized(String db, BsonDocument command) {
        String shown = command.isEmpty() ? "{}" : new BsonDocument(command.getFirstKey(), command.get(command.getFirstKey())).toJson();
        if (shown.length() > 200) {
            shown = "{ " + command.getFirstKey() + ": ... }";
        }
        return "not authorized on " + db + " to execute command " + shown;
    }
}
