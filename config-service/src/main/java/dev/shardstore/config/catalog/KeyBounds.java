package dev.shardstore.config.catalog;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import org.bson.BsonDocument;

/** Encodes chunk bounds given by a caller, with errors that name the field the bound came from. */
public final class KeyBounds {
    private KeyBounds() {}

    /**
     * The KeyString of {@code bound}.
     *
     * @param field the command field the bound came from, e.g. {@code min} or {@code splitPoints.2}
     * @throws CommandException BadValue naming {@code field} when the bound does not have exactly the pattern's fields
     */
    public static byte[] encode(ShardKeyPattern key, BsonDocument bound, String field) {
        try {
            return key.encode(bound);
        } catch (CommandException e) {
            throw new CommandException(ErrorCode.BadValue, "'" + field + "': " + e.getMessage());
        }
    }
}
