package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code setParameter} through the router sets the parameter on the router and on every shard, {@code getParameter}
 * reads the router's back with MongoDB's shapes; a refused value reaches no shard.
 */
class ServerParametersRoutingTest extends RouterAgainstFakeCluster {
    @AfterEach
    void defaults() throws Exception {
        command("admin", "{setParameter: 1, internalQueryMaxBlockingSortMemoryUsageBytes: 104857600}").assertOk();
    }

    @Test
    void setParameterReachesEveryShardAndGetParameterReadsItBack() throws Exception {
        CLUSTER.forgetRequests();
        Reply set = command("admin", "{setParameter: 1, internalQueryMaxBlockingSortMemoryUsageBytes: 33554432, comment: 'lower'}");
        set.assertOk();
        assertThat(set.body().getNumber("was").longValue()).isEqualTo(104_857_600L); // REST's relaxed JSON shows it as a plain number
        for (String shard : List.of("sh1", "sh2")) {
            assertThat(sent(CLUSTER.shard(shard), "admin", "setParameter")).as(shard).singleElement()
                    .satisfies(c -> assertThat(c.getNumber("internalQueryMaxBlockingSortMemoryUsageBytes").longValue()).isEqualTo(33554432L));
        }
        Reply read = command("admin", "{getParameter: 1, internalQueryMaxBlockingSortMemoryUsageBytes: 1, featureCompatibilityVersion: 1}");
        read.assertOk();
        assertThat(read.body().getNumber("internalQueryMaxBlockingSortMemoryUsageBytes").longValue()).isEqualTo(33554432L);
        assertThat(read.body().getDocument("featureCompatibilityVersion")).isEqualTo(new BsonDocument("version", new BsonString("8.0")));
        assertThat(command("admin", "{getParameter: '*'}").body().keySet())
                .contains("featureCompatibilityVersion", "allowDiskUseByDefault", "internalDocumentSourceGroupMaxMemoryBytes");
    }

    @Test
    void theRoutersCursorCapRefusesOneMoreCursorAndTheOthersKeepWorking() throws Exception {
        String sessions = "{aggregate: 1, pipeline: [{$listLocalSessions: {}}], cursor: {batchSize: 0}}";
        command("admin", "{startSession: 1}").assertOk(); // something to list, so that the cursor stays open
        Reply first = command("admin", sessions);
        first.assertOk();
        long open = first.body().getDocument("cursor").getNumber("id").longValue();
        assertThat(open).isNotZero();
        command("admin", "{setParameter: 1, internalQueryMaxOpenCursors: 1}").assertOk();
        try {
            command("admin", sessions).assertError(400, 96, "internalQueryMaxOpenCursors is 1");
            command("admin", "{getMore: " + open + ", collection: '$cmd.aggregate'}").assertOk(); // the open one still serves
        } finally {
            command("admin", "{setParameter: 1, internalQueryMaxOpenCursors: 10000}").assertOk();
        }
        command("admin", sessions).assertOk();
    }

    @Test
    void aRefusedParameterReachesNoShard() throws Exception {
        CLUSTER.forgetRequests();
        command("admin", "{setParameter: 1, internalQueryMaxBlockingSortMemoryUsageBytes: 'big'}").assertError(400, 2,
                "internalQueryMaxBlockingSortMemoryUsageBytes");
        command("admin", "{setParameter: 1, notAParameter: 1}").assertError(400, 72, "notAParameter");
        command("admin", "{getParameter: 1, notAParameter: 1}").assertError(400, 72, "notAParameter");
        assertThat(sent(CLUSTER.shard("sh1"), "admin", "setParameter")).isEmpty();
        assertThat(sent(CLUSTER.shard("sh2"), "admin", "setParameter")).isEmpty();
    }
}
