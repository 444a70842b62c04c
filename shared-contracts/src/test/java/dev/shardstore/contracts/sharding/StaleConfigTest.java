package dev.shardstore.contracts.sharding;

import static dev.shardstore.contracts.sharding.ShardingFixtures.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import dev.shardstore.contracts.version.ChunkVersion;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The StaleConfig error: its reply fields as MongoDB's StaleConfigInfo, and reading them back from a peer's reply. */
class StaleConfigTest {
    static Stream<Arguments> errors() {
        return Stream.of(
                Arguments.of(new StaleConfig("db.coll", version(2, 3), version(3, 0), "shard1")),
                Arguments.of(new StaleConfig("db.coll", ChunkVersion.UNSHARDED, version(1, 0), "shard1")),
                Arguments.of(new StaleConfig("db.coll", version(2, 3), null, "shard0")));
    }

    @ParameterizedTest
    @MethodSource("errors")
    void roundTripsThroughTheErrorReply(StaleConfig stale) {
        CommandException e = stale.toException();
        assertThat(e.code()).isEqualTo(ErrorCode.StaleConfig);
        BsonDocument reply = BsonBytes.decode(BsonBytes.encode(e.toReply()));
        assertThat(reply.getInt32("code").getValue()).isEqualTo(13388);
        assertThat(reply.getString("codeName").getValue()).isEqualTo("StaleConfig");
        assertThat(reply.getString("ns").getValue()).isEqualTo(stale.namespace());
        assertThat(reply.getDocument("vReceived")).isEqualTo(stale.received().toBson());
        assertThat(reply.containsKey("vWanted")).isEqualTo(stale.wanted() != null);
        assertThat(StaleConfig.fromReply(reply)).isEqualTo(stale);
        assertThat(StaleConfig.fromReply(ErrorReplies.toException(reply).toReply())).as("relayed by another service").isEqualTo(stale);
    }

    @Test
    void theMessageSaysWhatEachSideHas() {
        assertThat(new StaleConfig("db.coll", version(2, 3), version(3, 0), "shard1").toException())
                .hasMessageContaining("db.coll").hasMessageContaining("shard1").hasMessageContaining("2|3").hasMessageContaining("3|0");
        assertThat(new StaleConfig("db.coll", version(2, 3), null, "shard1").toException()).hasMessageContaining("unknown");
    }

    @Test
    void requiresNamespaceReceivedAndShard() {
        assertThatThrownBy(() -> new StaleConfig(null, version(1, 0), null, "s")).isInstanceOf(NullPointerException.class).hasMessage("namespace");
        assertThatThrownBy(() -> new StaleConfig("db.c", null, null, "s")).isInstanceOf(NullPointerException.class).hasMessage("received");
        assertThatThrownBy(() -> new StaleConfig("db.c", version(1, 0), null, null)).isInstanceOf(NullPointerException.class).hasMessage("shardId");
    }

    @Test
    void anotherErrorIsNotAStaleConfig() {
        BsonDocument other = ErrorReplies.errorReply(ErrorCode.BadValue, "no", new BsonDocument());
        assertThatThrownBy(() -> StaleConfig.fromReply(other)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a StaleConfig");
        assertThatThrownBy(() -> StaleConfig.fromReply(new BsonDocument("ok", new BsonInt32(1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a StaleConfig");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ns", "vReceived", "shardId"})
    void aStaleConfigReplyMissingAFieldIsMalformedNamingIt(String field) {
        BsonDocument reply = new StaleConfig("db.coll", version(2, 3), version(3, 0), "shard1").toException().toReply();
        reply.remove(field);
        assertThatThrownBy(() -> StaleConfig.fromReply(reply))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("malformed StaleConfig reply")
                .hasMessageContaining(field);
    }

    @ParameterizedTest
    @MethodSource("malformedWanted")
    void aMalformedWantedVersionIsMalformedNotUnknown(BsonValue wanted) {
        BsonDocument reply = new StaleConfig("db.coll", version(2, 3), version(3, 0), "shard1").toException().toReply();
        reply.put("vWanted", wanted);
        assertThatThrownBy(() -> StaleConfig.fromReply(reply))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("malformed StaleConfig reply");
    }

    static Stream<BsonValue> malformedWanted() {
        return Stream.of(new BsonDocument("major", new BsonString("x")), new BsonString("3|0"), BsonNull.VALUE);
    }
}
