package dev.shardstore.contracts.namespace;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.nio.charset.StandardCharsets;

/**
 * MongoDB's rule for database names ({@code DatabaseName::validate}): 1 to 63 bytes of UTF-8, none of
 * {@code / \ . " $}, space or NUL. One rule for every service that accepts a database name.
 */
public final class DatabaseNames {
    /** Longest database name, in UTF-8 bytes. */
    public static final int MAX_BYTES = 63;

    private static final String FORBIDDEN = "/\\. \"$\0";

    private DatabaseNames() {}

    /**
     * @throws CommandException InvalidNamespace (73) for an empty or too long name or a forbidden character
     */
    public static void validate(String db) {
        if (db == null || db.isEmpty()) {
            throw invalid("database names cannot be empty");
        }
        for (int i = 0; i < db.length(); i++) {
            if (FORBIDDEN.indexOf(db.charAt(i)) >= 0) {
                throw invalid("invalid database name '" + db.replace("\0", "\\0")
                        + "': it may not contain any of / \\ . \" $, a space or a NUL character");
            }
        }
        if (db.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            throw invalid("database name '" + db + "' is longer than " + MAX_BYTES + " bytes");
        }
    }

    private static CommandException invalid(String message) {
        return new CommandException(ErrorCode.InvalidNamespace, message);
    }
}
