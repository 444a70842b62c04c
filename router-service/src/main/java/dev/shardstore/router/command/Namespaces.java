package dev.shardstore.router.command;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.Set;

/** MongoDB's naming rules for databases, checked before anything is routed. */
final class Namespaces {
    /** Characters MongoDB forbids in database names (on every platform it supports). */
    private static final String FORBIDDEN_DB_CHARS = "/\\. \"$\0";
    private static final int MAX_DB_NAME_BYTES = 63;
    private static final Set<String> SYSTEM_DATABASES = Set.of("admin", "config", "local");

    private Namespaces() {}

    /**
     * @throws CommandException InvalidNamespace (73) naming the rule the name breaks
     */
    static void checkDatabaseName(String db) {
        if (db.isEmpty()) {
            throw new CommandException(ErrorCode.InvalidNamespace, "database name cannot be empty");
        }
        if (db.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_DB_NAME_BYTES) {
            throw new CommandException(ErrorCode.InvalidNamespace, "database name '" + db + "' is longer than " + MAX_DB_NAME_BYTES + " bytes");
        }
        for (char c : db.toCharArray()) {
            if (FORBIDDEN_DB_CHARS.indexOf(c) >= 0) {
                throw new CommandException(ErrorCode.InvalidNamespace, "database name '" + db + "' contains the invalid character '" + c + "'");
            }
        }
    }

    /**
     * Data commands run on user databases only; {@code admin}, {@code config} and {@code local} are not
     * writable through the router.
     */
    static void checkUserDatabase(String db, String command) {
        checkDatabaseName(db);
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
