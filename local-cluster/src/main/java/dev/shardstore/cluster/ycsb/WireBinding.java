package dev.shardstore.cluster.ycsb;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCredential;
import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import site.ycsb.DBException;

/**
 * YCSB binding for a router's MongoDB wire protocol: {@link CommandBinding}'s commands through the official Java
 * driver's {@code runCommand} (OP_MSG over a pooled connection), the path drivers and mongosh take. Property
 * {@code shardstore.wire}: the router's connection string, e.g. {@code mongodb://localhost:27017}. YCSB creates one
 * binding per client thread; they share one {@link MongoClient} (its pool holds one connection per thread in use),
 * closed with the last binding.
 */
public final class WireBinding extends CommandBinding {
    /** Property naming the router's connection string. */
    public static final String WIRE_PROPERTY = "shardstore.wire";

    private static final Object LOCK = new Object();
    private static final AtomicInteger OPEN = new AtomicInteger();
    /** Shared by the binding instances of one YCSB run (one per client thread); null while none is open. */
    private static @Nullable MongoClient client;

    @Override
    public void init() throws DBException {
        super.init();
        String uri = required(WIRE_PROPERTY, "the router's mongodb:// connection string");
        Credentials credentials = credentials();
        synchronized (LOCK) {
            if (client == null) {
                MongoClientSettings.Builder settings = MongoClientSettings.builder()
                        .applyConnectionString(new ConnectionString(uri))
                        .applyToSocketSettings(s -> s.readTimeout(30, TimeUnit.SECONDS));
                if (credentials != null) { // SCRAM-SHA-256 once per connection, as a driver does
                    settings.credential(MongoCredential.createScramSha256Credential(credentials.user(), "admin",
                            credentials.password().toCharArray()));
                }
                client = MongoClients.create(settings.build());
            }
            OPEN.incrementAndGet();
        }
    }

    @Override
    protected @Nullable BsonDocument send(String db, BsonDocument command) {
        MongoClient open = client;
        if (open == null) {
            throw new IllegalStateException("WireBinding.send before init or after the last cleanup");
        }
        try {
            return open.getDatabase(db).runCommand(command, BsonDocument.class);
        } catch (MongoException e) {
            return null;
        }
    }

    @Override
    public void cleanup() {
        synchronized (LOCK) {
            if (OPEN.decrementAndGet() == 0 && client != null) {
                client.close();
                client = null;
            }
        }
    }
}
