package dev.shardstore.contracts.sharding;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.version.ChunkVersion;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.jspecify.annotations.Nullable;

/**
 * The {@code StaleConfig} (13388) error a shard answers when the shard version a request carries differs from
 * its filtering metadata (mongo/src/mongo/db/s/README.md "Versioning updates"). Extra fields, as MongoDB's {@code StaleConfigInfo}:
 * {@code {ns, vReceived, vWanted?, shardId}}; {@code vWanted} is absent when the shard does not know its own
 * version (its refresh failed).
 *
 * @param namespace {@code db.coll}
 * @param received  the version the request carried
 * @param wanted    the shard's version for itself, or null when unknown
 * @param shardId   the answering shard
 */
public record StaleConfig(String namespace, ChunkVersion received, @Nullable ChunkVersion wanted, String shardId) {
    public StaleConfig {
        java.util.Objects.requireNonNull(namespace, "namespace");
        java.util.Objects.requireNonNull(received, "received");
        java.util.Objects.requireNonNull(shardId, "shardId");
    }

    /** The error to throw. */
    public CommandException toException() {
        BsonDocument info = new BsonDocument("ns", new BsonString(namespace))
                .append("vReceived", received.toBson())
                .append("shardId", new BsonString(shardId));
        if (wanted != null) {
            info.append("vWanted", wanted.toBson());
        }
        return new CommandException(ErrorCode.StaleConfig, "shard version mismatch for " + namespace + " on shard " + shardId
                + ": received " + received + ", shard has " + (wanted == null ? "unknown" : wanted), info);
    }

    /**
     * Reads the extra fields of a StaleConfig error reply ({@code {ok: 0, code: 13388, ns, vReceived, vWanted?, shardId}}).
     *
     * @throws IllegalArgumentException when the reply is not a well-formed StaleConfig error (a {@code vWanted} that is
     *                                  present but not a version is malformed, not "unknown")
     */
    public static StaleConfig fromReply(BsonDocument reply) {
        if (!reply.isNumber("code") || reply.getNumber("code").intValue() != ErrorCode.StaleConfig.code()) {
            throw new IllegalArgumentException("not a StaleConfig reply: " + reply.toJson());
        }
        try {
            return new StaleConfig(reply.getString("ns").getValue(), ChunkVersion.fromBson(reply.getDocument("vReceived")),
                    reply.containsKey("vWanted") ? ChunkVersion.fromBson(reply.getDocument("vWanted")) : null,
                    reply.getString("shardId").getValue());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed StaleConfig reply " + reply.toJson() + ": " + e.getMessage(), e);
        }
    }
}
