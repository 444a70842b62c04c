package dev.shardstore.router.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * The router's circuit breaker and bulkhead per peer ({@code PeerClient}), against fake shards that fail or hang: a
 * shard that keeps failing opens its breaker, after which the router answers at once with an error naming it and sends
 * it nothing, while the other shard is served; when it recovers, probes close the breaker and traffic resumes. A shard
 * that hangs holds at most {@code max-concurrent-calls} requests; one more is refused with
 * NetworkInterfaceExceededTimeLimit while the other shard is served. A small window and a short open state (its own
 * router context) keep the test short.
 */
@TestPropertySource(properties = {
        "shardstore.router.peers.sliding-window-size=4",
        "shardstore.router.peers.minimum-calls=4",
        "shardstore.router.peers.open-duration=1s",
        "shardstore.router.peers.half-open-calls=2",
        "shardstore.router.peers.max-concurrent-calls=3",
        "shardstore.router.peers.max-wait=200ms"})
class PeerGuardsTest extends RouterAgainstFakeCluster {
    /** {@code db.c} on {@code {x: 1}}: x < 0 on sh1, x ≥ 0 on sh2. */
    private static void shard(String db) {
        CLUSTER.shardCollection(db + ".c", new BsonDocument("x", new BsonInt32(1)), List.<BsonValue>of(new BsonInt32(0)), List.of("sh1", "sh2"));
    }

    private long requestsTo(String db) {
        return CLUSTER.sh2.received.stream().filter(r -> r.db().equals(db)).count();
    }

    @Test
    void aFailingShardOpensItsBreakerAndIsCutOffUntilItRecovers() throws Exception {
        shard("breaker");
        CLUSTER.broken.add("sh2");
        try {
            Reply failed = command("breaker", "{find: 'c', filter: {x: 5}}");
            for (int i = 0; i < 10 && !failed.body().getString("errmsg").getValue().contains("circuit breaker"); i++) {
                failed.assertError(503, 6, "sh2 at ", "unreachable");
                failed = command("breaker", "{find: 'c', filter: {x: 5}}");
            }
            long sent = requestsTo("breaker");

            Reply refused = command("breaker", "{find: 'c', filter: {x: 5}}");

            refused.assertError(503, 6, "sh2 at ", "circuit breaker", "OPEN", "calls failed", "last failure: sh2 at ");
            assertThat(requestsTo("breaker")).as("nothing reaches a shard whose breaker is open").isEqualTo(sent);
            command("breaker", "{find: 'c', filter: {x: -5}}").assertOk();
            assertThat(get("/actuator/peers")).contains("\"sh2\"", "\"OPEN\"");
            assertThat(get("/actuator/prometheus")).contains("resilience4j_circuitbreaker_state{name=\"sh2\",state=\"open\"} 1.0");
        } finally {
            CLUSTER.broken.remove("sh2");
        }

        // the breaker lets a trial call through once its open state's wait has passed on resilience4j's own clock
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> command("breaker", "{find: 'c', filter: {x: 5}}").assertOk());
        command("breaker", "{find: 'c', filter: {x: 5}}").assertOk();
        command("breaker", "{insert: 'c', documents: [{x: 7}]}").assertOk();
        assertThat(get("/actuator/peers")).contains("\"CLOSED\"").doesNotContain("\"OPEN\"", "HALF_OPEN");
    }

    @Test
    void aHangingShardHoldsAtMostItsBulkheadWhileTheOtherShardIsServed() throws Exception {
        shard("bulkhead");
        CountDownLatch release = new CountDownLatch(1);
        CLUSTER.held.put("sh2", release);
        List<Future<Reply>> held = new ArrayList<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            try {
                for (int i = 0; i < 3; i++) {
                    held.add(clients.submit(() -> command("bulkhead", "{find: 'c', filter: {x: 5}}")));
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> requestsTo("bulkhead") >= 3);
                assertThat(requestsTo("bulkhead")).isEqualTo(3);

                command("bulkhead", "{find: 'c', filter: {x: 6}}").assertError(503, 202, "sh2", "3 requests in flight");
                command("bulkhead", "{find: 'c', filter: {x: -6}}").assertOk();
                assertThat(requestsTo("bulkhead")).as("the refused find was not sent").isEqualTo(3);
            } finally {
                CLUSTER.held.remove("sh2");
                release.countDown();
            }
            for (Future<Reply> reply : held) {
                reply.get().assertOk();
            }
        }
        command("bulkhead", "{find: 'c', filter: {x: 6}}").assertOk();
    }
}
