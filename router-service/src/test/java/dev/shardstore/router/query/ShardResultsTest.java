package dev.shardstore.router.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.DistinctValues;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/** Count and distinct over several shards. */
class ShardResultsTest {

    private static BsonDocument n(long n) {
        return new BsonDocument("n", new org.bson.BsonInt64(n)).append("ok", new BsonInt32(1));
    }

    @Test
    void shardsCountWithoutSkipAndWithSkipPlusLimit() {
        BsonDocument cmd = ExtendedJson.parse("{count: 'c', query: {a: 1}, skip: 5, limit: 10}");
        assertThat(ShardResults.shardCount(cmd, 5, 10)).isEqualTo(ExtendedJson.parse("{count: 'c', query: {a: 1}, limit: {$numberLong: '15'}}"));
        assertThat(ShardResults.shardCount(ExtendedJson.parse("{count: 'c', skip: 5}"), 5, 0)).isEqualTo(ExtendedJson.parse("{count: 'c'}"));
        assertThat(cmd.getInt32("skip").getValue()).as("the client's command is not modified").isEqualTo(5);
    }

    /** Counting per partition with the shard rewrite and merging equals counting the union with skip and limit. */
    @Test
    void countMatchesSkipAndLimitOverTheUnion() {
        Random random = new Random(3);
        for (int round = 0; round < 300; round++) {
            long[] sizes = {random.nextInt(20), random.nextInt(20), random.nextInt(20)};
            long skip = random.nextInt(40);
            long limit = random.nextInt(4) == 0 ? 0 : random.nextInt(40);
            long shardLimit = ShardResults.shardCount(new BsonDocument("count", new BsonString("c")), skip, limit)
                    .getNumber("limit", new BsonInt32(0)).longValue();
            List<BsonDocument> replies = new ArrayList<>();
            long total = 0;
            for (long size : sizes) {
                replies.add(n(shardLimit == 0 ? size : Math.min(size, shardLimit)));
                total += size;
            }
            long expected = Math.max(0, total - skip);
            if (limit > 0) {
                expected = Math.min(expected, limit);
            }
            assertThat(ShardResults.count(replies, skip, limit).getNumber("n").longValue()).isEqualTo(expected);
        }
    }

    @Test
    void aShardErrorIsTheClientsError() {
        BsonDocument error = ExtendedJson.parse("{ok: 0, code: 2, codeName: 'BadValue', errmsg: 'bad query'}");
        assertThatThrownBy(() -> ShardResults.count(List.of(n(1), error), 0, 0)).isInstanceOf(CommandException.class)
                .satisfies(e -> assertThat(((CommandException) e).code()).isEqualTo(ErrorCode.BadValue));
    }

    @Test
    void distinctIsTheUnionInBsonOrderWithTheEnginesEquality() {
        Random random = new Random(5);
        BsonValue[] pool = {new BsonInt32(1), new BsonDouble(1.0), new BsonString("a"), org.bson.BsonNull.VALUE, new BsonInt32(-4),
                new BsonDocument("x", new BsonInt32(1)), new BsonArray(List.of(new BsonInt32(2)))};
        for (int round = 0; round < 100; round++) {
            Map<String, BsonDocument> replies = new LinkedHashMap<>();
            DistinctValues whole = new DistinctValues("v");
            for (int s = 0; s < 3; s++) {
                DistinctValues shard = new DistinctValues("v");
                for (int i = random.nextInt(6); i > 0; i--) {
                    BsonDocument doc = new BsonDocument("v", pool[random.nextInt(pool.length)]);
                    shard.add(doc);
                    whole.add(doc);
                }
                replies.put("s" + s, new BsonDocument("values", new BsonArray(shard.values())).append("ok", new BsonInt32(1)));
            }
            BsonArray merged = ShardResults.distinct(replies, Collation.SIMPLE).getArray("values");
            assertThat(merged.getValues()).isEqualTo(whole.values());
            for (int i = 0; i < merged.size(); i++) {
                assertThat(merged.get(i).getBsonType()).as("the first shard's representative is kept").isEqualTo(whole.values().get(i).getBsonType());
            }
        }
    }
}
