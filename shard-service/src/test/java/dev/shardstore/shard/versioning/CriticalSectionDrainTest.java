package dev.shardstore.shard.versioning;

import static dev.shardstore.shard.TestRouting.versioned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.sharding.StaleConfig;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.support.failpoint.FailPointAction;
import dev.shardstore.support.failpoint.FailPoints;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The race of defect 1: a versioned write that passed its version check just before shardCollection's prepare must
 * be counted by the prepare's emptiness check or be refused, never acknowledged behind its back.
 */
class CriticalSectionDrainTest extends ShardIntegrationTest {
    private static final String AFTER_CHECK = CollectionShardingRuntime.AFTER_VERSION_CHECK;

    @Autowired
    FailPoints failPoints;

    @Test
    void aWritePastItsVersionCheckIsCountedByThePrepareOrRefused() throws Exception {
        long entered = failPoints.timesEntered(AFTER_CHECK);
        failPoints.configure(AFTER_CHECK, FailPointAction.pause(), 1);
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            // a router that believes the collection unsharded writes; the write is held between its check and its effect
            Future<BsonDocument> write = pool.submit(() -> run("csd_race",
                    versioned("{insert: 'c', documents: [{_id: 1, x: 5}]}", ChunkVersion.UNSHARDED)));
            assertThat(failPoints.awaitEntered(AFTER_CHECK, entered + 1, Duration.ofSeconds(20))).isTrue();
            Future<BsonDocument> prepare = pool.submit(() -> run("csd_race", "{_shardsvrPrepareShardCollection: 'c', key: {_id: 1}}"));
            try {
                prepare.get(1, TimeUnit.SECONDS); // the old code does not wait for the write: the prepare finishes here
            } catch (TimeoutException expected) {
                // the prepare waits for the write in flight
            }
            failPoints.configure(AFTER_CHECK, null, 0);
            BsonDocument prepared = prepare.get(20, TimeUnit.SECONDS);
            BsonDocument written = write.get(20, TimeUnit.SECONDS);

            assertThat(prepared.getNumber("ok").intValue()).as(prepared.toJson()).isEqualTo(1);
            if (written.getNumber("ok").intValue() == 1) {
                assertThat(written.getNumber("n").intValue()).isEqualTo(1);
                assertThat(prepared.getBoolean("empty").getValue()).as("the prepare counted the acknowledged write").isFalse();
                assertThat(prepared.getNumber("count").longValue()).isEqualTo(1);
            } else {
                assertThat(StaleConfig.fromReply(written).namespace()).isEqualTo("csd_race.c");
                assertThat(documentsOf("csd_race", "c")).isEmpty();
            }
        } finally {
            failPoints.configure(AFTER_CHECK, null, 0);
            run("admin", "{_shardsvrRefreshCollection: 'csd_race.c'}");
        }
    }
}
