package dev.shardstore.cluster.ycsb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB's operations as the router's commands, whatever carries them: {@code find} by {@code _id} (limit 1), a range
 * {@code find} sorted on {@code _id} for scans, {@code insert}, {@code update} with {@code $set}, {@code delete}.
 * Subclasses send a command document and return the reply ({@link RouterBinding}: REST, {@link WireBinding}: the
 * MongoDB wire protocol), so both front ends run exactly the same commands. Property {@code shardstore.db} names the
 * database; YCSB's {@code table} is the collection. A command that answers {@code ok: 0}, a write error, or a
 * transport failure is {@link Status#ERROR}; a read that finds nothing is {@link Status#NOT_FOUND}. Against a cluster
 * with authentication, properties {@code shardstore.user} and {@code shardstore.password-file} name the user and the
 * file holding its password (a file, so that the password is not on YCSB's command line).
 */
public abstract class CommandBinding extends DB {
    /** Property naming the database that holds YCSB's table. */
    public static final String DATABASE_PROPERTY = "shardstore.db";
    /** The database used when {@link #DATABASE_PROPERTY} is not set. */
    public static final String DEFAULT_DATABASE = "ycsb";

    /** Property naming the user the binding authenticates as (on {@code admin}); none: unauthenticated. */
    public static final String USER_PROPERTY = "shardstore.user";
    /** Property naming the file that holds {@link #USER_PROPERTY}'s password. */
    public static final String PASSWORD_FILE_PROPERTY = "shardstore.password-file";

    private String db = DEFAULT_DATABASE;

    /** A user and its password. */
    protected record Credentials(String user, String password) {
        @Override
        public String toString() {
            return "Credentials[" + user + "]"; // never the password
        }
    }

    @Override
    public void init() throws DBException {
        db = getProperties().getProperty(DATABASE_PROPERTY, DEFAULT_DATABASE);
    }

    /**
     * The credentials of {@link #USER_PROPERTY} and {@link #PASSWORD_FILE_PROPERTY}, or null without a user.
     *
     * @throws DBException a user without a readable password file
     */
    protected final @Nullable Credentials credentials() throws DBException {
        String user = getProperties().getProperty(USER_PROPERTY);
        if (user == null) {
            return null;
        }
        Path file = Path.of(required(PASSWORD_FILE_PROPERTY, "the file holding " + user + "'s password"));
        try {
            return new Credentials(user, Files.readString(file).strip());
        } catch (IOException e) {
            throw new DBException("cannot read " + user + "'s password from " + file, e);
        }
    }

    /** A required binding property. */
    protected final String required(String property, String what) throws DBException {
        String value = getProperties().getProperty(property);
        if (value == null) {
            throw new DBException("property " + property + " (" + what + ") is required");
        }
        return value;
    }

    /**
     * Sends {@code command} to the router's database {@code db}.
     *
     * @return the reply, or null when the command failed (transport failure or {@code ok: 0}); YCSB counts failures
     *         and has no place for their messages
     */
    protected abstract @Nullable BsonDocument send(String db, BsonDocument command);

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        BsonDocument find = new BsonDocument("find", new BsonString(table))
                .append("filter", new BsonDocument("_id", new BsonString(key)))
                .append("limit", new BsonInt32(1))
                .append("singleBatch", BsonBoolean.TRUE);
        BsonArray batch = firstBatch(find);
        if (batch == null) {
            return Status.ERROR;
        }
        if (batch.isEmpty()) {
            return Status.NOT_FOUND;
        }
        YcsbRecords.read(batch.get(0).asDocument(), fields, result);
        return Status.OK;
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result) {
        BsonDocument find = new BsonDocument("find", new BsonString(table))
                .append("filter", new BsonDocument("_id", new BsonDocument("$gte", new BsonString(startkey))))
                .append("sort", new BsonDocument("_id", new BsonInt32(1)))
                .append("limit", new BsonInt32(recordcount))
                .append("batchSize", new BsonInt32(recordcount))
                .append("singleBatch", BsonBoolean.TRUE);
        BsonArray batch = firstBatch(find);
        if (batch == null) {
            return Status.ERROR;
        }
        for (BsonValue doc : batch) {
            result.add(YcsbRecords.row(doc.asDocument(), fields));
        }
        return Status.OK;
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        BsonDocument statement = new BsonDocument("q", new BsonDocument("_id", new BsonString(key)))
                .append("u", new BsonDocument("$set", YcsbRecords.fields(values, new BsonDocument())));
        return write(new BsonDocument("update", new BsonString(table)).append("updates", new BsonArray(List.of(statement))));
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        return write(new BsonDocument("insert", new BsonString(table))
                .append("documents", new BsonArray(List.of(YcsbRecords.document(key, values)))));
    }

    @Override
    public Status delete(String table, String key) {
        BsonDocument statement = new BsonDocument("q", new BsonDocument("_id", new BsonString(key))).append("limit", new BsonInt32(1));
        return write(new BsonDocument("delete", new BsonString(table)).append("deletes", new BsonArray(List.of(statement))));
    }

    /** The reply's {@code cursor.firstBatch}, or null when the command failed. */
    private @Nullable BsonArray firstBatch(BsonDocument find) {
        BsonDocument reply = run(find);
        return reply == null ? null : reply.getDocument("cursor").getArray("firstBatch");
    }

    private Status write(BsonDocument command) {
        BsonDocument reply = run(command);
        return reply == null || reply.containsKey("writeErrors") ? Status.ERROR : Status.OK;
    }

    private @Nullable BsonDocument run(BsonDocument command) {
        return send(db, command);
    }
}
