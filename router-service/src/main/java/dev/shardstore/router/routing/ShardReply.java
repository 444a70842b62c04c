package dev.shardstore.router.routing;

import java.util.Objects;
import org.bson.BsonDocument;

/**
 * A shard's reply and which shard gave it.
 *
 * @param shardId the shard that answered
 * @param reply   its reply document (success or error)
 */
public record ShardReply(String shardId, BsonDocument reply) {
    public ShardReply {
        Objects.requireNonNull(shardId, "shardId");
        Objects.requireNonNull(reply, "reply");
    }
}
