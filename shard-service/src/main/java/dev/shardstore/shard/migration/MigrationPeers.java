package dev.shardstore.shard.migration;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.ChunkRange;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.shard.ShardProperties;
import dev.shardstore.support.ServiceSupportProperties;
import dev.shardstore.transport.http.CommandClient;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * A shard's calls for chunk migration: to the other shard of a migration (found by name through the config service's
 * {@code listShards}, cached) and to the config service (the commit, the recovery fence, changelog entries). Every call
 * is one internal command (docs/sharding-protocol.md, "Chunk migration"); errors come back as {@link CommandException}
 * (HostUnreachable/NetworkTimeout when the peer did not answer).
 */
@Component
public class MigrationPeers {
    private static final Logger log = LoggerFactory.getLogger(MigrationPeers.class);

    private final CommandClient client;
    private final String configUrl;
    private final String shardName;
    private final Map<String, String> hosts = new ConcurrentHashMap<>();

    public MigrationPeers(CommandClient client, ServiceSupportProperties support, ShardProperties shard) {
        this.client = client;
        this.configUrl = support.configUrl();
        this.shardName = shard.name();
    }

    /** This shard's name. */
    public String self() {
        return shardName;
    }

    /**
     * Runs {@code command} on shard {@code shard} ({@code db}), and returns its successful reply; an unknown name reloads
     * the shard list once.
     *
     * @throws CommandException ShardNotFound for a name the config service does not know; the shard's error;
     *                          HostUnreachable/NetworkTimeout
     */
    public BsonDocument onShard(String shard, String db, BsonDocument command) {
        return client.runChecked(shard, hostOf(shard), db, command);
    }

    /** Runs {@code command} on the config service's {@code admin} and returns its successful reply. */
    public BsonDocument onConfig(BsonDocument command) {
        return client.runChecked("config", configUrl, "admin", command);
    }

    private String hostOf(String shard) {
        String host = hosts.get(shard);
        if (host != null) {
            return host;
        }
        BsonDocument reply = onConfig(new BsonDocument("listShards", new BsonInt32(1)));
        for (BsonValue entry : reply.getArray("shards")) {
            hosts.put(entry.asDocument().getString("_id").getValue(), entry.asDocument().getString("host").getValue());
        }
        host = hosts.get(shard);
        if (host == null) {
            throw new CommandException(ErrorCode.ShardNotFound, "no shard named '" + shard + "' is registered");
        }
        return host;
    }

    /** {@code _configsvrCommitChunkMigration} (see the config service): the catalog half of the migration. */
    BsonDocument commitChunkMigration(Namespace ns, ChunkVersion collectionVersion, ChunkRange range, ChunkVersion chunkVersion,
            String toShard) {
        return onConfig(new BsonDocument("_configsvrCommitChunkMigration", new BsonString(ns.full()))
                .append("collEpoch", new BsonObjectId(collectionVersion.epoch()))
                .append("collTimestamp", collectionVersion.timestamp())
                .append("migratedChunk", range.toBson().append("lastmod", chunkVersion.toBson()))
                .append("fromShard", new BsonString(shardName))
                .append("toShard", new BsonString(toShard)));
    }

    /**
     * {@code _configsvrEnsureChunkVersionIsGreaterThan}: fences the chunk at {@code version} so that a commit still in
     * flight is refused.
     */
    void ensureChunkVersionIsGreaterThan(Namespace ns, ChunkRange range, ChunkVersion version) {
        onConfig(new BsonDocument("_configsvrEnsureChunkVersionIsGreaterThan", new BsonString(ns.full()))
                .append("collEpoch", new BsonObjectId(version.epoch()))
                .append("collTimestamp", version.timestamp())
                .append("minKey", range.min())
                .append("maxKey", range.max())
                .append("version", version.toBson()));
    }

    /**
     * Writes a {@code config.changelog} entry ({@code _configsvrLogChange}), best effort: a failure is logged, never
     * thrown, so that it cannot fail a migration.
     */
    void logChange(String what, Namespace ns, BsonDocument details) {
        try {
            onConfig(new BsonDocument("_configsvrLogChange", new BsonString(what)).append("ns", new BsonString(ns.full()))
                    .append("shard", new BsonString(shardName)).append("details", details));
        } catch (CommandException | IllegalStateException e) {
            log.warn("could not record {} of {} in config.changelog: {}", what, ns, e.getMessage());
        }
    }

    /**
     * The recipient's {@code _recvChunkStart}.
     *
     * @param startAfter the cluster time the donor's oplog reading starts after (its pin)
     */
    void recvChunkStart(String recipient, UUID id, Namespace ns, ChunkRange range, BsonDocument shardKey, BsonTimestamp startAfter) {
        onShard(recipient, "admin", new BsonDocument("_recvChunkStart", new BsonString(ns.full()))
                .append("migrationId", new BsonString(id.toString()))
                .append("fromShard", new BsonString(shardName))
                .append("min", range.min())
                .append("max", range.max())
                .append("shardKeyPattern", shardKey)
                .append("startAfter", startAfter));
    }

    /** The recipient's {@code _recvChunkStatus} reply. */
    BsonDocument recvChunkStatus(String recipient, UUID id, Namespace ns) {
        return onShard(recipient, "admin", migrationCommand("_recvChunkStatus", ns, id));
    }

    /** The recipient's {@code _recvChunkCommit}: answers once it applied every change up to now. */
    BsonDocument recvChunkCommit(String recipient, UUID id, Namespace ns) {
        return onShard(recipient, "admin", migrationCommand("_recvChunkCommit", ns, id));
    }

    /** The recipient's {@code _recvChunkDecision}: the migration's outcome for its range deletion task. */
    void recvChunkDecision(String recipient, UUID id, Namespace ns, MigrationDecision decision) {
        onShard(recipient, "admin", migrationCommand("_recvChunkDecision", ns, id).append("decision", new BsonString(decision.value())));
    }

    /** The donor's {@code _migrateClone}: the next batch of the range's documents after {@code after} (null: from the start). */
    BsonDocument migrateClone(String donor, UUID id, Namespace ns, @Nullable BsonDocument after) {
        BsonDocument command = migrationCommand("_migrateClone", ns, id);
        if (after != null) {
            command.append("after", after);
        }
        return onShard(donor, "admin", command);
    }

    /** The donor's {@code _transferMods}: the range's oplog entries after {@code after}. */
    BsonDocument transferMods(String donor, UUID id, Namespace ns, BsonTimestamp after) {
        return onShard(donor, "admin", migrationCommand("_transferMods", ns, id).append("after", after));
    }

    /** The donor's {@code _getNextSessionMods}: the range's retryable-write history after {@code after}. */
    BsonDocument nextSessionMods(String donor, UUID id, Namespace ns, long after) {
        return onShard(donor, "admin", migrationCommand("_getNextSessionMods", ns, id).append("after", new BsonInt64(after)));
    }

    /** The donor's options of {@code ns} ({@code listCollections}), empty when it has none. */
    public BsonDocument collectionOptions(String donor, Namespace ns) {
        BsonDocument reply = onShard(donor, ns.db(), new BsonDocument("listCollections", new BsonInt32(1))
                .append("filter", new BsonDocument("name", new BsonString(ns.collection()))));
        var batch = reply.getDocument("cursor").getArray("firstBatch");
        return batch.isEmpty() ? new BsonDocument() : batch.get(0).asDocument().getDocument("options", new BsonDocument());
    }

    /** The donor's index specs of {@code ns} ({@code listIndexes}); empty when it has no such collection. */
    public List<BsonDocument> indexSpecs(String donor, Namespace ns) {
        BsonDocument reply = onShard(donor, ns.db(), new BsonDocument("listIndexes", new BsonString(ns.collection())));
        return reply.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private static BsonDocument migrationCommand(String name, Namespace ns, UUID id) {
        return new BsonDocument(name, new BsonString(ns.full())).append("migrationId", new BsonString(id.toString()));
    }

    /** Whether {@code e} says the peer did not answer (so the outcome of the call is unknown). */
    static boolean unanswered(CommandException e) {
        return e.code() == ErrorCode.HostUnreachable || e.code() == ErrorCode.NetworkTimeout;
    }
}
