package dev.shardstore.contracts.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import dev.shardstore.contracts.timeseries.Granularity;
import dev.shardstore.contracts.timeseries.TimeseriesOptions;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The config.collections entry: its BSON shape both ways and what it refuses. */
class ShardedCollectionTest {
    private static final ShardKeyPattern KEY = ShardKeyPattern.of(ExtendedJson.parse("{region: 1, _id: 'hashed'}"));

    private static ShardedCollection sample() {
        return new ShardedCollection("shop.orders", UUID.fromString("11111111-2222-3333-4444-555555555555"),
                new ObjectId("65f1c0ffee0000000000abcd"), new BsonTimestamp(1_700_000_123, 4), KEY, true, true);
    }

    @Test
    void roundTripsThroughBsonAndRawBytes() {
        ShardedCollection coll = sample();
        BsonDocument bson = coll.toBson();
        assertThat(bson.keySet()).containsExactly("_id", "lastmodEpoch", "timestamp", "uuid", "key", "unique", "noBalance");
        assertThat(bson.getString("_id").getValue()).isEqualTo("shop.orders");
        assertThat(bson.getBinary("uuid").getType()).as("UUID subtype 4").isEqualTo(BsonBinarySubType.UUID_STANDARD.getValue());
        assertThat(ShardedCollection.fromBson(bson)).isEqualTo(coll);
        assertThat(ShardedCollection.fromBson(new RawBsonDocument(BsonBytes.encode(bson)))).isEqualTo(coll);
        assertThat(coll.database()).isEqualTo("shop");
        assertThat(coll.collection()).isEqualTo("orders");
    }

    @Test
    void aTimeseriesBucketsCollectionCarriesItsTimeseriesFields() {
        TimeseriesOptions options = TimeseriesOptions.of("t", "m", Granularity.HOURS);
        ShardedCollection coll = new ShardedCollection("db.system.buckets.weather", UUID.randomUUID(), new ObjectId(),
                new BsonTimestamp(1, 1), ShardKeyPattern.of(ExtendedJson.parse("{meta: 1}")), false, false, options);

        BsonDocument bson = coll.toBson();

        assertThat(bson.getDocument("timeseriesFields")).isEqualTo(ExtendedJson.parse(
                "{timeField: 't', metaField: 'm', granularity: 'hours', bucketMaxSpanSeconds: 2592000}"));
        assertThat(ShardedCollection.fromBson(bson)).isEqualTo(coll);
        assertThat(coll.isTimeseries()).isTrue();
        assertThat(sample().isTimeseries()).isFalse();
    }

    @Test
    void uniqueAndNoBalanceDefaultToFalse() {
        BsonDocument bson = sample().toBson();
        bson.remove("unique");
        bson.remove("noBalance");
        ShardedCollection coll = ShardedCollection.fromBson(bson);
        assertThat(coll.unique()).isFalse();
        assertThat(coll.noBalance()).isFalse();
    }

    @Test
    void aCollectionNameMayContainDots() {
        ShardedCollection coll = new ShardedCollection("db.system.buckets.x", UUID.randomUUID(), new ObjectId(), new BsonTimestamp(1, 1),
                KEY, false, false);
        assertThat(coll.database()).isEqualTo("db");
        assertThat(coll.collection()).isEqualTo("system.buckets.x");
    }

    @ParameterizedTest
    @ValueSource(strings = {"orders", ".orders", "shop.", ""})
    void rejectsANamespaceThatIsNotDbDotCollection(String namespace) {
        assertThatThrownBy(() -> new ShardedCollection(namespace, UUID.randomUUID(), new ObjectId(), new BsonTimestamp(1, 1), KEY, false, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("namespace");
    }

    @ParameterizedTest
    @ValueSource(strings = {"_id", "lastmodEpoch", "timestamp", "uuid", "key"})
    void aMissingFieldIsAnIllegalArgumentNamingIt(String field) {
        BsonDocument bson = sample().toBson();
        bson.remove(field);
        assertThatThrownBy(() -> ShardedCollection.fromBson(bson))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("malformed config.collections entry")
                .hasMessageContaining(field);
    }

    @Test
    void wrongTypesAndAnInvalidKeyAreIllegalArguments() {
        BsonDocument badKey = sample().toBson().append("key", new BsonDocument("x", new BsonInt32(-1)));
        assertThatThrownBy(() -> ShardedCollection.fromBson(badKey))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'key'");
        BsonDocument badUuid = sample().toBson().append("uuid", new BsonBinary(new byte[] {1, 2, 3}));
        assertThatThrownBy(() -> ShardedCollection.fromBson(badUuid)).isInstanceOf(IllegalArgumentException.class);
        BsonDocument badId = sample().toBson().append("_id", new BsonString("nodot"));
        assertThatThrownBy(() -> ShardedCollection.fromBson(badId)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("namespace");
    }
}
