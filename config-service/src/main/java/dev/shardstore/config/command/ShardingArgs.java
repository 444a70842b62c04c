package dev.shardstore.config.command;

import dev.shardstore.config.catalog.CommitExpectation;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * Typed reads of the sharding commands' fields on top of {@link CommandArgs}; every error names the field: missing
 * is FailedToParse, wrong type TypeMismatch, malformed value BadValue.
 */
final class ShardingArgs {
    private final BsonDocument command;
    private final CommandArgs args;

    ShardingArgs(BsonDocument command) {
        this.command = command;
        this.args = new CommandArgs(command);
    }

    /** The {@code db.coll} namespace in the command's first field. */
    Namespace namespace() {
        return Namespace.parse(args.requiredString(command.getFirstKey()), command.getFirstKey());
    }

    String string(String field) {
        return args.requiredString(field);
    }

    BsonDocument document(String field) {
        return args.document(args.required(command, field, field), field);
    }

    /** An optional document field, null when absent or null. */
    @Nullable BsonDocument optionalDocument(String field) {
        BsonValue value = command.get(field);
        return value == null || value.isNull() ? null : args.document(value, field);
    }

    /** The {@code key} field as a shard key pattern (BadValue naming {@code key} when invalid). */
    ShardKeyPattern key() {
        return ShardKeyPattern.of(document("key"));
    }

    /** A {@code {min, max}} document field. */
    ChunkRange range(String field) {
        BsonDocument range = document(field);
        return new ChunkRange(args.document(args.required(range, "min", field + ".min"), field + ".min"),
                args.document(args.required(range, "max", field + ".max"), field + ".max"));
    }

    /** An array of documents, its elements named {@code field.i} in errors. */
    List<BsonDocument> documents(String field) {
        BsonArray array = args.requiredArray(field);
        List<BsonDocument> documents = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            documents.add(args.document(array.get(i), field + "." + i));
        }
        return documents;
    }

    /** An optional ChunkVersion document field ({@code {major, minor, epoch, timestamp}}); null when absent. */
    @Nullable ChunkVersion optionalVersion(String field) {
        BsonDocument doc = optionalDocument(field);
        return doc == null ? null : version(doc, field);
    }

    /** A required ChunkVersion document field. */
    ChunkVersion version(String field) {
        return version(document(field), field);
    }

    /** The optional ChunkVersion document {@code field} inside the document field {@code parent}; null when absent. */
    @Nullable ChunkVersion optionalVersionIn(String parent, String field) {
        BsonValue value = document(parent).get(field);
        return value == null || value.isNull() ? null : version(args.document(value, parent + "." + field), parent + "." + field);
    }

    /** {@code collEpoch}, {@code collTimestamp} and the optional {@code expectedCollectionVersion} of a commit. */
    CommitExpectation expectation() {
        BsonValue epoch = args.required(command, "collEpoch", "collEpoch");
        BsonValue timestamp = args.required(command, "collTimestamp", "collTimestamp");
        if (!epoch.isObjectId()) {
            throw typeMismatch("collEpoch", "an ObjectId", epoch);
        }
        if (!timestamp.isTimestamp()) {
            throw typeMismatch("collTimestamp", "a Timestamp", timestamp);
        }
        return new CommitExpectation(epoch.asObjectId().getValue(), timestamp.asTimestamp(), optionalVersion("expectedCollectionVersion"));
    }

    private static ChunkVersion version(BsonDocument doc, String field) {
        try {
            return ChunkVersion.fromBson(doc);
        } catch (IllegalArgumentException e) {
            throw new CommandException(ErrorCode.BadValue, "'" + field + "': " + e.getMessage());
        }
    }

    private CommandException typeMismatch(String field, String expected, BsonValue actual) {
        return new CommandException(ErrorCode.TypeMismatch, "'" + field + "' of the " + command.getFirstKey() + " command must be "
                + expected + ", not " + actual.getBsonType().name().toLowerCase());
    }
}
