package dev.shardstore.shard.write;

import dev.shardstore.contracts.error.CommandException;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * What one update or delete statement did. A statement that failed part-way keeps the counts of
 * what it changed before the failure (those changes are committed) and carries the error.
 *
 * @param n          documents matched (update) or deleted (delete), not counting an upsert
 * @param nModified  documents an update actually changed
 * @param upsertedId the {@code _id} of the document an upsert inserted, or null
 * @param error      why the statement stopped, or null
 */
public record StatementOutcome(long n, long nModified, @Nullable BsonValue upsertedId, @Nullable CommandException error) {
    static StatementOutcome failed(CommandException error) {
        return new StatementOutcome(0, 0, null, error);
    }
}
