package dev.shardstore.contracts.http;

/**
 * The service-to-service HTTP contract. Every internal service (config, shard) serves MongoDB-shaped
 * command documents at one path, with {@code application/bson} bodies both ways:
 *
 * <pre>POST {base}/internal/v1/databases/{db}/command   body: command document → reply document</pre>
 *
 * A reply is {@code {ok: 1, ...}} or an error reply {@code {ok: 0, errmsg, code, codeName}} with HTTP 200;
 * any other HTTP status or a transport failure means the peer did not process the command.
 * Version-checked commands carry {@code databaseVersion} (unsharded) or {@code shardVersion} (sharded).
 *
 * <p>The same commands also travel as MongoDB wire-protocol OP_MSG messages (the command with {@code $db}, the reply
 * as the body section), as mongos and mongod talk: a service that listens for them names its port in the
 * {@link #COMMAND_PORT_HEADER} of every HTTP reply, and a client that sees it sends that peer's later commands there
 * (the {@code transport} module implements both ends: {@code CommandClient} and {@code WireCommandChannel}).
 */
public final class InternalApi {
    public static final String MEDIA_TYPE_BSON = "application/bson";
    public static final String COMMAND_PATH = "/internal/v1/databases/{db}/command";

    /** Command field that carries the router's DatabaseVersion (as in MongoDB). */
    public static final String DATABASE_VERSION_FIELD = "databaseVersion";

    /**
     * Command field that carries the shard version the router's routing table has for the target shard
     * ({@code ChunkVersion} BSON; {@code ChunkVersion.UNSHARDED} for a collection the router believes unsharded).
     */
    public static final String SHARD_VERSION_FIELD = "shardVersion";

    /** HTTP reply header naming the port where the peer takes the same commands as OP_MSG messages. */
    public static final String COMMAND_PORT_HEADER = "Shardstore-Command-Port";

    private InternalApi() {}

    public static String commandPath(String db) {
        return "/internal/v1/databases/" + db + "/command";
    }
}
