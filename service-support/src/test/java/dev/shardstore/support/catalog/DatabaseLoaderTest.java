package dev.shardstore.support.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.version.DatabaseVersion;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/**
 * The one database loader of the router and the shards: a database the config service does not know is empty (the
 * router's {@code getDatabase}, the shard's {@code NO_DATABASE}), another error is thrown, and a reply without a valid
 * entry is InternalError (the router threw whatever reading it threw).
 */
class DatabaseLoaderTest {
    private static final DatabaseVersion VERSION = DatabaseVersion.newDatabase(new BsonTimestamp(100, 1));

    private final List<BsonDocument> received = new ArrayList<>();

    private DatabaseLoader answering(BsonDocument reply) {
        return new DatabaseLoader(command -> {
            received.add(command);
            return reply;
        });
    }

    private static BsonDocument entryReply(String db, String primary) {
        return new BsonDocument("ok", new BsonInt32(1)).append("database", new BsonDocument("_id", new BsonString(db))
                .append("primary", new BsonString(primary)).append("version", VERSION.toBson()));
    }

    @Test
    void aKnownDatabaseIsItsEntry() {
        assertThat(answering(entryReply("geo", "sh2")).lookup("geo")).contains(new DatabaseEntry("geo", "sh2", VERSION));
        assertThat(received).containsExactly(new BsonDocument("_configsvrGetDatabase", new BsonString("geo")));
    }

    @Test
    void createAsksTheConfigServiceToCreateIt() {
        assertThat(answering(entryReply("geo", "sh1")).create("geo")).isEqualTo(new DatabaseEntry("geo", "sh1", VERSION));
        assertThat(received).containsExactly(new BsonDocument("_configsvrCreateDatabase", new BsonString("geo")));
    }

    @Test
    void anUnknownDatabaseIsEmptyAndOtherErrorsAreThrown() {
        DatabaseLoader notFound = new DatabaseLoader(command -> {
            throw new CommandException(ErrorCode.NamespaceNotFound, "database geo not found");
        });
        assertThat(notFound.lookup("geo")).isEmpty();
        DatabaseLoader unreachable = new DatabaseLoader(command -> {
            throw new CommandException(ErrorCode.HostUnreachable, "config down");
        });
        assertThatThrownBy(() -> unreachable.lookup("geo")).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.HostUnreachable));
    }

    @Test
    void aReplyWithoutAValidEntryIsInternalError() {
        BsonDocument noVersion = new BsonDocument("ok", new BsonInt32(1)).append("database", new BsonDocument("_id", new BsonString("geo"))
                .append("primary", new BsonString("sh1")));
        assertThatThrownBy(() -> answering(noVersion).lookup("geo")).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.InternalError)).hasMessageContaining("without a valid database entry");
        assertThatThrownBy(() -> answering(new BsonDocument("ok", new BsonInt32(1))).create("geo"))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.InternalError));
    }
}
