package dev.shardstore.router.routing;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.sharding.StaleConfig;
import java.util.Objects;
import org.bson.BsonDocument;
import org.jspecify.annotations.Nullable;

/**
 * A shard answered {@code StaleConfig} (13388) or {@code StaleDbVersion} (249) to a versioned request
 * (mongo/src/mongo/db/s/README.md "Versioning updates"): the router's routing information and the shard's disagree.
 * {@link VersionedRouter#run} catches it, marks the cache entry stale and reruns the statement; it never
 * reaches a client as such (after the last attempt the router throws the reply as a {@link CommandException}).
 * Carries no stack trace: it is control flow, thrown on every routing change.
 */
public final class StaleRoutingException extends RuntimeException {
    private final String shard;
    private final BsonDocument reply;

    /**
     * @param shard the shard that answered
     * @param reply its error reply, code 13388 or 249
     * @throws IllegalArgumentException when the reply is neither
     */
    public StaleRoutingException(String shard, BsonDocument reply) {
        super(shard + ": " + (reply.isString("errmsg") ? reply.getString("errmsg").getValue() : reply.toJson()), null, false, false);
        this.shard = Objects.requireNonNull(shard, "shard");
        this.reply = Objects.requireNonNull(reply, "reply");
        if (!isStaleReply(reply)) {
            throw new IllegalArgumentException("not a StaleConfig or StaleDbVersion reply: " + reply.toJson());
        }
    }

    /** Whether {@code reply} is a StaleConfig or StaleDbVersion error reply. */
    public static boolean isStaleReply(BsonDocument reply) {
        if (!ErrorReplies.isError(reply) || !reply.isNumber("code")) {
            return false;
        }
        int code = reply.getNumber("code").intValue();
        return code == ErrorCode.StaleConfig.code() || code == ErrorCode.StaleDbVersion.code();
    }

    /** The shard that answered. */
    public String shard() {
        return shard;
    }

    /** The shard's error reply. */
    public BsonDocument reply() {
        return reply;
    }

    /** {@link ErrorCode#StaleConfig} or {@link ErrorCode#StaleDbVersion}. */
    public ErrorCode code() {
        return ErrorCode.ofNumber(reply.getNumber("code").intValue());
    }

    /** Whether the database version (not a collection's shard version) was stale. */
    public boolean isDatabaseVersion() {
        return code() == ErrorCode.StaleDbVersion;
    }

    /**
     * The StaleConfig details, or null for StaleDbVersion or a StaleConfig reply without well-formed details
     * (the router then treats the whole entry as stale).
     */
    public @Nullable StaleConfig staleConfig() {
        if (isDatabaseVersion()) {
            return null;
        }
        try {
            return StaleConfig.fromReply(reply);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The reply as the exception a client gets once the router gives up. */
    public CommandException toCommandException() {
        return ErrorReplies.toException(reply);
    }
}
