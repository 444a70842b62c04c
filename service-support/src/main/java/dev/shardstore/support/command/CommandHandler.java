package dev.shardstore.support.command;

import dev.shardstore.support.operation.OperationContext;
import java.util.Set;
import org.bson.BsonDocument;

/**
 * One database command, named as in MongoDB manual "Database Commands" (the first key of the command
 * document). Implementations are Spring beans; a {@link CommandRegistry} collects them.
 */
public interface CommandHandler {
    /** MongoDB's command name, for example {@code "insert"} or {@code "listShards"}. */
    String name();

    /** Other accepted spellings (MongoDB's legacy aliases such as {@code findandmodify}). */
    default Set<String> aliases() {
        return Set.of();
    }

    /**
     * Runs the command.
     *
     * @param opCtx   the operation the command is (its deadline, session fields, read concern and caller)
     * @param db      the database the command was sent to
     * @param command the whole command document; its first key is the command name
     * @return the reply document including {@code ok: 1}
     * @throws dev.shardstore.contracts.error.CommandException for every failure the caller should see
     */
    BsonDocument run(OperationContext opCtx, String db, BsonDocument command);

    /** The body of a command that needs nothing of its operation but the command: database and command in, reply out. */
    @FunctionalInterface
    interface Body {
        BsonDocument run(String db, BsonDocument command);
    }

    /** The body of a command that uses its operation's context. */
    @FunctionalInterface
    interface OperationBody {
        BsonDocument run(OperationContext opCtx, String db, BsonDocument command);
    }

    /** A handler from a name and a body, for commands small enough not to need a class of their own. */
    static CommandHandler of(String name, Body body) {
        return of(name, (OperationBody) (opCtx, db, command) -> body.run(db, command));
    }

    /** A handler from a name and a body that uses the operation's context. */
    static CommandHandler of(String name, OperationBody body) {
        return new CommandHandler() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public BsonDocument run(OperationContext opCtx, String db, BsonDocument command) {
                return body.run(opCtx, db, command);
            }
        };
    }
}
