package dev.shardstore.cluster.ycsb;

import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.cluster.router.RouterException;
import java.time.Duration;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;
import site.ycsb.DBException;

/**
 * YCSB binding for a router's REST command API (docs/architecture.md "The client API: REST and the wire protocol"): {@link CommandBinding}'s commands as Extended JSON to
 * {@code POST /v1/databases/{db}/command}. Property {@code shardstore.router}: the router's URL.
 */
public final class RouterBinding extends CommandBinding {
    /** Property naming the router's base URL, e.g. {@code http://localhost:8780}. */
    public static final String ROUTER_PROPERTY = "shardstore.router";

    private RouterClient router;

    @Override
    public void init() throws DBException {
        super.init();
        Credentials credentials = credentials();
        router = new RouterClient(required(ROUTER_PROPERTY, "the router URL"), Duration.ofSeconds(30),
                credentials == null ? null : credentials.user(), credentials == null ? null : credentials.password())
                .withToken(); // a password check per request is a PBKDF2: a token, as a REST client sending many would take
    }

    @Override
    protected @Nullable BsonDocument send(String db, BsonDocument command) {
        try {
            BsonDocument reply = router.run(db, command);
            return RouterClient.isOk(reply) ? reply : null;
        } catch (RouterException e) {
            return null;
        }
    }
}
