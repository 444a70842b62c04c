package dev.shardstore.config.shard;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.contracts.version.DatabaseVersion;
import dev.shardstore.config.sharding.ShardingProperties;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.transport.http.CommandClient;
import dev.shardstore.transport.membership.ClusterKey;
import org.bson.BsonObjectId;
import org.bson.types.ObjectId;
import org.bson.BsonTimestamp;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;
import org.bson.BsonValue;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * The config service's calls to shards, over the internal command API. A migration's {@code _shardsvrMoveRange}, which
 * answers only when the migration is over, goes through a client of its own whose request timeout is
 * {@code shardstore.sharding.migration-timeout} and which proves membership with the cluster key, when there is one,
 * as the ordinary peer client does.
 */
@Component
public class ShardPeers {
    private final CommandClient client;
    private final CommandClient migrations;

    public ShardPeers(CommandClient client, ServiceSupportProperties support, ShardingProperties sharding, ObjectProvider<ClusterKey> clusterKey) {
        this.client = client;
        this.migrations = new CommandClient(support.peerConnectTimeout(), sharding.migrationTimeout(), null, clusterKey.getIfAvailable());
    }

    /**
     * Asks the shard at {@code host} for its configured name ({@code _shardsvrName}).
     *
     * @throws dev.shardstore.contracts.error.CommandException HostUnreachable/NetworkTimeout when it does not answer
     */
    public String name(String host) {
        return client.runChecked("the shard", host, "admin", new BsonDocument("_shardsvrName", new BsonInt32(1)))
                .getString("name").getValue();
    }

    /** The shard's total data size in bytes ({@code listDatabases.totalSize}). */
    public long totalSize(String shardId, String host) {
        return client.runChecked(shardId, host, "admin", new BsonDocument("listDatabases", new BsonInt32(1)))
                .getNumber("totalSize").longValue();
    }

    /**
     * Drops every collection of {@code db} on that shard, naming the version being dropped so the shard
     * refuses stale routers until the catalog entry is gone.
     */
    public void dropDatabase(String shardId, String host, String db, DatabaseVersion version) {
        client.runChecked(shardId, host, db, new BsonDocument("dropDatabase", new BsonInt32(1))
                .append(InternalApi.DATABASE_VERSION_FIELD, version.toBson()));
    }

    /**
     * {@code _shardsvrPrepareShardCollection} on the database's primary shard: creates the collection if missing and
     * checks or creates the shard key index; answers whether it is empty and the split keys for its data.
     *
     * @param version the database version the config service has, so a shard that is no longer primary refuses
     * @throws CommandException the shard's error (InvalidOptions when no index supports the key, StaleDbVersion, …),
     *                          HostUnreachable/NetworkTimeout, or InternalError for a malformed answer
     */
    public PreparedCollection prepareShardCollection(String shardId, String host, String db, String collection, ShardKeyPattern key,
            boolean unique, long maxChunkSizeBytes, @Nullable DatabaseVersion version, @Nullable BsonDocument timeseries) {
        BsonDocument command = new BsonDocument("_shardsvrPrepareShardCollection", new BsonString(collection))
                .append("key", key.pattern())
                .append("unique", BsonBoolean.valueOf(unique))
                .append("maxChunkSizeBytes", new BsonInt64(maxChunkSizeBytes));
        if (timeseries != null) {
            command.append("timeseries", timeseries);
        }
        if (version != null) {
            command.append(InternalApi.DATABASE_VERSION_FIELD, version.toBson());
        }
        BsonDocument reply = client.runChecked(shardId, host, db, command);
        if (!reply.isBoolean("empty") || !reply.isNumber("count") || !reply.isArray("splitKeys")) {
            throw malformed(shardId, "_shardsvrPrepareShardCollection", reply);
        }
        return new PreparedCollection(reply.getBoolean("empty").getValue(), reply.getNumber("count").longValue(),
                documents(shardId, "_shardsvrPrepareShardCollection", reply), reply.containsKey("timeseriesFields")
                        ? TimeseriesOptions.parse(reply.get("timeseriesFields"), "timeseriesFields") : null);
    }

    /**
     * {@code listIndexes} of {@code db.collection} on that shard: the index specifications ({@code {v, key, name,
     * unique?, ...}}) of its first batch (MongoDB allows 64 indexes per collection, the batch holds 101); none when the
     * collection does not exist there (NamespaceNotFound).
     */
    public List<BsonDocument> listIndexes(String shardId, String host, String db, String collection) {
        BsonDocument reply = client.run(shardId, host, db, new BsonDocument("listIndexes", new BsonString(collection)));
        if (ErrorReplies.isError(reply)) {
            CommandException error = ErrorReplies.toException(reply);
            if (error.code() == ErrorCode.NamespaceNotFound) {
                return List.of();
            }
            throw error;
        }
        if (!reply.isDocument("cursor") || !reply.getDocument("cursor").isArray("firstBatch")) {
            throw malformed(shardId, "listIndexes", reply);
        }
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    /**
     * MongoDB's {@code splitVector} with {@code force: true}: the median key of {@code range} on that shard.
     *
     * @return the split keys (at most one with force); empty when the range holds too few distinct keys
     */
    public List<BsonDocument> splitVector(String shardId, String host, String namespace, ShardKeyPattern key, ChunkRange range) {
        BsonDocument reply = client.runChecked(shardId, host, "admin", new BsonDocument("splitVector", new BsonString(namespace))
                .append("keyPattern", key.pattern())
                .append("min", range.min())
                .append("max", range.max())
                .append("force", BsonBoolean.TRUE));
        if (!reply.isArray("splitKeys")) {
            throw malformed(shardId, "splitVector", reply);
        }
        return documents(shardId, "splitVector", reply);
    }

    /** {@code _shardsvrRefreshCollection}: makes the shard reload its filtering metadata of {@code namespace}. */
    public void refreshCollection(String shardId, String host, String namespace) {
        client.runChecked(shardId, host, "admin", new BsonDocument("_shardsvrRefreshCollection", new BsonString(namespace)));
    }

    /**
     * {@code _shardsvrParticipantBlock: <collection>} on {@code db} (MongoDB's): {@code blockType} "Writes" or
     * "ReadsAndWrites" enters the collection's critical section on that shard for {@code reason}, "Unblock" exits it
     * and has the shard refresh its filtering metadata. Idempotent.
     *
     * @throws CommandException the shard's error (ConflictingOperationInProgress when the section is held for another
     *                          reason), HostUnreachable/NetworkTimeout
     */
    public void participantBlock(String shardId, String host, String db, String collection, String blockType, BsonDocument reason) {
        client.runChecked(shardId, host, db, new BsonDocument("_shardsvrParticipantBlock", new BsonString(collection))
                .append("blockType", new BsonString(blockType)).append("reason", reason));
    }

    /**
     * Drops {@code db.collection} on that shard, without versions (so a critical section held on it does not block the
     * drop); a collection the shard does not have counts as dropped.
     */
    public void dropCollection(String shardId, String host, String db, String collection) {
        try {
            client.runChecked(shardId, host, db, new BsonDocument("drop", new BsonString(collection)));
        } catch (CommandException e) {
            if (e.code() != ErrorCode.NamespaceNotFound) {
                throw e;
            }
        }
    }

    /**
     * MongoDB's {@code _shardsvrMoveRange} on the donor: migrates the chunk {@code range} (exactly one chunk of the donor,
     * with version {@code chunkVersion}) to {@code toShard} and answers when the migration has committed or aborted.
     *
     * @param maxChunkSizeBytes the donor refuses a range holding more than this (about) unless {@code forceJumbo}
     * @return the donor's reply ({@code {ok: 1, ...}})
     * @throws CommandException the donor's error (ConflictingOperationInProgress when it migrates something else,
     *                          ChunkTooBig, the reason of an abort), HostUnreachable/NetworkTimeout
     */
    public BsonDocument moveRange(String shardId, String host, String namespace, ChunkRange range, ChunkVersion chunkVersion,
            ObjectId epoch, BsonTimestamp timestamp, String toShard, boolean waitForDelete, boolean forceJumbo, long maxChunkSizeBytes) {
        return migrations.runChecked(shardId, host, "admin", new BsonDocument("_shardsvrMoveRange", new BsonString(namespace))
                .append("min", range.min())
                .append("max", range.max())
                .append("chunkVersion", chunkVersion.toBson())
                .append("collEpoch", new BsonObjectId(epoch))
                .append("collTimestamp", timestamp)
                .append("fromShard", new BsonString(shardId))
                .append("toShard", new BsonString(toShard))
                .append("waitForDelete", BsonBoolean.valueOf(waitForDelete))
                .append("forceJumbo", BsonBoolean.valueOf(forceJumbo))
                .append("maxChunkSizeBytes", new BsonInt64(maxChunkSizeBytes)));
    }

    /**
     * {@code splitVector} with {@code maxChunkSizeBytes} (no force): the split points that cut {@code range} on that shard
     * into chunks of about that size, in key order; empty when the range is smaller.
     */
    public List<BsonDocument> splitVector(String shardId, String host, String namespace, ShardKeyPattern key, ChunkRange range,
            long maxChunkSizeBytes) {
        BsonDocument reply = client.runChecked(shardId, host, "admin", new BsonDocument("splitVector", new BsonString(namespace))
                .append("keyPattern", key.pattern())
                .append("min", range.min())
                .append("max", range.max())
                .append("maxChunkSizeBytes", new BsonInt64(maxChunkSizeBytes)));
        if (!reply.isArray("splitKeys")) {
            throw malformed(shardId, "splitVector", reply);
        }
        return documents(shardId, "splitVector", reply);
    }

    /**
     * The names of {@code db}'s collections on that shard (an unversioned {@code listCollections}, which no critical
     * section blocks), sorted.
     */
    public List<String> listCollectionNames(String shardId, String host, String db) {
        BsonDocument reply = client.runChecked(shardId, host, db, new BsonDocument("listCollections", new BsonInt32(1))
                .append("nameOnly", BsonBoolean.TRUE).append("cursor", new BsonDocument("batchSize", new BsonInt32(Integer.MAX_VALUE))));
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(c -> c.asDocument().getString("name").getValue())
                .sorted().toList();
    }

    /**
     * {@code _shardsvrMovePrimaryEnterCriticalSection} on {@code db}: {@code blockType} "Writes" or "ReadsAndWrites"
     * enters that phase of the database's critical section on that shard (the old primary) for {@code reason}.
     * Idempotent.
     *
     * @throws CommandException the shard's error (ConflictingOperationInProgress when held for another reason),
     *                          HostUnreachable/NetworkTimeout
     */
    public void movePrimaryEnterCriticalSection(String shardId, String host, String db, String blockType, BsonDocument reason) {
        client.runChecked(shardId, host, db, new BsonDocument("_shardsvrMovePrimaryEnterCriticalSection", new BsonInt32(1))
                .append("blockType", new BsonString(blockType)).append("reason", reason));
    }

    /**
     * {@code _shardsvrMovePrimaryExitCriticalSection} on {@code db}: the shard exits the database's section held for
     * {@code reason} and reloads the database version. Idempotent.
     */
    public void movePrimaryExitCriticalSection(String shardId, String host, String db, BsonDocument reason) {
        client.runChecked(shardId, host, db, new BsonDocument("_shardsvrMovePrimaryExitCriticalSection", new BsonInt32(1))
                .append("reason", reason));
    }

    /**
     * {@code _shardsvrCloneCatalogData} on {@code db}: that shard (the new primary) clones {@code collections} from the
     * shard {@code fromShard} at {@code fromHost}. Idempotent.
     *
     * @throws CommandException the shard's error (or the old primary's, relayed), HostUnreachable/NetworkTimeout
     */
    public void cloneCatalogData(String shardId, String host, String db, String fromShard, String fromHost, List<String> collections) {
        client.runChecked(shardId, host, db, new BsonDocument("_shardsvrCloneCatalogData", new BsonInt32(1))
                .append("from", new BsonString(fromHost)).append("fromShard", new BsonString(fromShard))
                .append("collections", new BsonArray(collections.stream().map(c -> (BsonValue) new BsonString(c)).toList())));
    }

    private static List<BsonDocument> documents(String shardId, String command, BsonDocument reply) {
        BsonArray keys = reply.getArray("splitKeys");
        for (BsonValue k : keys) {
            if (!k.isDocument()) {
                throw malformed(shardId, command, reply);
            }
        }
        return keys.stream().map(BsonValue::asDocument).toList();
    }

    private static CommandException malformed(String shardId, String command, BsonDocument reply) {
        return new CommandException(ErrorCode.InternalError, "shard " + shardId + " answered " + command + " with a malformed reply: " + reply.toJson());
    }
}
