package dev.shardstore.contracts.http;

import java.util.List;

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

    /**
     * HTTP request header with the caller's proof of cluster membership (a member token of the {@code transport} module's
     * {@code MemberToken}) when the cluster has a key: without a valid one, the command is refused with Unauthorized
     * (13) and not run.
     */
    public static final String MEMBER_TOKEN_HEADER = "Shardstore-Member-Token";

    /**
     * The name prefixes of the internal commands, which only members of the cluster run (MongoDB gives their actions to
     * {@code __system} alone): MongoDB's ({@code _shardsvr*}, {@code _configsvr*}, {@code _recvChunk*},
     * {@code _migrateClone}, {@code _transferMods}, {@code _getNextSessionMods}, {@code _flush*CacheUpdates}) and this
     * cluster's own ({@code _sessions*} of the session service, {@code _authenticateMember}).
     */
    public static final List<String> INTERNAL_COMMAND_PREFIXES = List.of("_shardsvr", "_configsvr", "_recvChunk", "_migrateClone",
            "_transferMods", "_getNextSessionMods", "_flushRoutingTableCacheUpdates", "_flushDatabaseCacheUpdates", "_sessions",
            "_authenticateMember");

    private InternalApi() {}

    /** Whether {@code commandName} is an internal command ({@link #INTERNAL_COMMAND_PREFIXES}). */
    public static boolean isInternalCommand(String commandName) {
        for (String prefix : INTERNAL_COMMAND_PREFIXES) {
            if (commandName.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    public static String commandPath(String db) {
        return "/internal/v1/databases/" + db + "/command";
    }
}
