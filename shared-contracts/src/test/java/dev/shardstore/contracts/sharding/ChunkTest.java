package dev.shardstore.contracts.sharding;

import static dev.shardstore.contracts.sharding.ShardingFixtures.version;
import static dev.shardstore.contracts.sharding.ShardingFixtures.x;
import static dev.shardstore.contracts.sharding.ShardingFixtures.xMax;
import static dev.shardstore.contracts.sharding.ShardingFixtures.xMin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** ChunkRange and Chunk: MongoDB's range rules, immutability, and the config.chunks BSON shape both ways. */
class ChunkTest {
    private static BsonDocument json(String json) {
        return ExtendedJson.parse(json);
    }

    @Test
    void rangeRoundTripsAndIsCopiedInAndOut() {
        BsonDocument min = json("{country: 'FR', name: {$minKey: 1}}");
        ChunkRange range = new ChunkRange(min, json("{country: 'FR', name: 'Paris'}"));
        min.put("country", new BsonInt32(1));
        range.min().put("country", new BsonInt32(2));
        range.toBson().getDocument("max").put("name", new BsonInt32(3));
        assertThat(range.toBson()).isEqualTo(json("{min: {country: 'FR', name: {$minKey: 1}}, max: {country: 'FR', name: 'Paris'}}"));
        assertThat(ChunkRange.fromBson(range.toBson())).isEqualTo(range);
        assertThat(range).hasToString("[{\"country\": \"FR\", \"name\": {\"$minKey\": 1}}, {\"country\": \"FR\", \"name\": \"Paris\"})");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "{x: 5}|{x: 5}|must be less than 'max'",
        "{x: 5}|{x: 5.0}|must be less than 'max'",
        "{x: 6}|{x: 5}|must be less than 'max'",
        "{x: {$maxKey: 1}}|{x: {$maxKey: 1}}|must be less than 'max'",
        "{x: 'a'}|{x: 5}|must be less than 'max'",
        "{a: 1, b: 2}|{a: 1, b: 1}|must be less than 'max'",
        "{}|{x: 5}|'min' must not be empty",
        "{x: 5}|{}|'max' must not be empty",
        "{x: 1}|{y: 2}|same fields",
        "{a: 1, b: 1}|{b: 2, a: 2}|same fields",
        "{a: 1}|{a: 1, b: 2}|same fields"})
    void rejectsEmptyMismatchedOrNonIncreasingBoundsAsBadValue(String min, String max, String message) {
        assertThatThrownBy(() -> new ChunkRange(json(min), json(max)))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BadValue))
                .hasMessageContaining(message);
    }

    @Test
    void boundsCompareFieldByFieldInBsonOrder() {
        assertThat(new ChunkRange(json("{a: 1, b: {$maxKey: 1}}"), json("{a: 2, b: {$minKey: 1}}")).max()).isEqualTo(json("{a: 2, b: {$minKey: 1}}"));
        assertThat(new ChunkRange(json("{x: 5}"), json("{x: 'a'}")).min()).as("numbers sort below strings").isEqualTo(json("{x: 5}"));
        assertThat(new ChunkRange(xMin(), xMax()).min()).isEqualTo(xMin());
    }

    @ParameterizedTest
    @ValueSource(strings = {"{max: {x: 1}}", "{min: {x: 1}}", "{min: 1, max: {x: 2}}", "{min: {x: 2}, max: {x: 1}}"})
    void malformedRangeDocumentsAreIllegalArgumentsQuotingTheDocument(String doc) {
        assertThatThrownBy(() -> ChunkRange.fromBson(json(doc)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed chunk range");
    }

    @Test
    void chunkRoundTripsThroughBsonAndRawBytes() {
        Chunk chunk = new Chunk(new ChunkRange(x(10), x(20)), "shard2", version(3, 4), true);
        BsonDocument bson = chunk.toBson();
        assertThat(bson.keySet()).containsExactly("min", "max", "shard", "lastmod", "jumbo");
        assertThat(bson.getDocument("lastmod")).isEqualTo(version(3, 4).toBson());
        assertThat(Chunk.fromBson(bson)).isEqualTo(chunk);
        assertThat(Chunk.fromBson(new RawBsonDocument(BsonBytes.encode(bson)))).as("as a peer's reply delivers it").isEqualTo(chunk);
    }

    @Test
    void jumboDefaultsToFalse() {
        Chunk chunk = new Chunk(new ChunkRange(x(10), x(20)), "shard2", version(3, 4));
        assertThat(chunk.jumbo()).isFalse();
        BsonDocument bson = chunk.toBson();
        bson.remove("jumbo");
        assertThat(Chunk.fromBson(bson)).isEqualTo(chunk);
    }

    @Test
    void chunkChecksItsFields() {
        ChunkRange range = new ChunkRange(x(1), x(2));
        assertThatThrownBy(() -> new Chunk(range, "", version(1, 0))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shard");
        assertThatThrownBy(() -> new Chunk(range, null, version(1, 0))).isInstanceOf(NullPointerException.class).hasMessageContaining("shard");
        assertThatThrownBy(() -> new Chunk(null, "s", version(1, 0))).isInstanceOf(NullPointerException.class).hasMessageContaining("range");
        assertThatThrownBy(() -> new Chunk(range, "s", null)).isInstanceOf(NullPointerException.class).hasMessageContaining("lastmod");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "min|",
        "max|",
        "shard|",
        "lastmod|",
        "shard|{shard: 7}",
        "shard|{shard: ''}",
        "lastmod|{lastmod: {major: 1}}",
        "jumbo|{jumbo: 'yes'}",
        "max|{max: {x: 0}}"})
    void malformedChunkDocumentsAreIllegalArgumentsNamingTheProblem(String field, String replacement) {
        BsonDocument doc = new Chunk(new ChunkRange(x(10), x(20)), "shard2", version(3, 4)).toBson();
        doc.remove(field);
        if (replacement != null) {
            doc.putAll(json(replacement));
        }
        assertThatThrownBy(() -> Chunk.fromBson(doc))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("malformed chunk {")
                .hasMessageContaining(field.equals("max") && replacement != null ? "less than 'max'" : field);
    }
}
