package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * {@code maxTimeMS} through the router: it reaches every shard a statement is sent to (each shard enforces it on its
 * scans), a bad value or a getMore's own limit is refused before anything is sent.
 */
class MaxTimeMSRoutingTest extends RouterAgainstFakeCluster {
    @Test
    void theLimitIsForwardedToEveryTargetedShard() throws Exception {
        CLUSTER.shardCollection("mt1.c", new BsonDocument("x", new BsonInt32(1)), List.<BsonValue>of(new BsonInt32(0)), List.of("sh1", "sh2"));

        command("mt1", "{find: 'c', filter: {}, maxTimeMS: 5000}").assertOk();
        command("mt1", "{count: 'c', maxTimeMS: 5000}").assertOk();

        for (String command : List.of("find", "count")) {
            assertThat(sent(CLUSTER.sh1, "mt1", command)).singleElement().satisfies(c -> assertThat(c.getNumber("maxTimeMS").intValue()).isEqualTo(5000));
            assertThat(sent(CLUSTER.sh2, "mt1", command)).singleElement().satisfies(c -> assertThat(c.getNumber("maxTimeMS").intValue()).isEqualTo(5000));
        }
    }

    @Test
    void badValuesAndAGetMoresOwnLimitAreRefusedAtTheRouter() throws Exception {
        command("mt2", "{find: 'c', maxTimeMS: -5}").assertError(400, 2, "find.maxTimeMS");
        command("mt2", "{find: 'c', maxTimeMS: 0.5}").assertError(400, 2, "find.maxTimeMS");
        command("mt2", "{getMore: {$numberLong: '77'}, collection: 'c', maxTimeMS: 10}").assertError(400, 2, "getMore");

        assertThat(sent(CLUSTER.sh1, "mt2", "find")).isEmpty();
    }
}
