package dev.shardstore.router.command;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.DatabaseNames;
import java.util.Set;

/** Which databases a router command may run on, checked before anything is routed (names by {@link DatabaseNames}). */
final class Namespaces {
    private static final Set<String> SYSTEM_DATABASES = Set.of("admin", "config", "local");

    private Namespaces() {}

    /**
     * Data commands run on user databases only; {@code admin}, {@code config} and {@code local} are not
     * writable through the router.
     */
    static void checkUserDatabase(String db, String command) {
        DatabaseNames.validate(db);
        if (SYSTEM_DATABASES.contains(db)) {
            throw new CommandException(ErrorCode.InvalidNamespace, command + " is not allowed on the '" + db + "' database through the router");
        }
    }

    /** Admin commands such as addShard run against the admin database only, as in mongos. */
    static void checkAdmin(String db, String command) {
        if (!"admin".equals(db)) {
            throw new CommandException(ErrorCode.IllegalOperation, command + " may only be run against the admin database");
        }
    }
}
