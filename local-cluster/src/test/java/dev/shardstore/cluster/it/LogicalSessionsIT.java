package dev.shardstore.cluster.it;

import static dev.shardstore.cluster.it.ItSupport.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.session.LogicalSessionId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Logical sessions across processes (mongo/src/mongo/db/s/README.md "Logical Sessions"; 2 shards, 1 router, ports offset 1900): the
 * router's and shards' logical session caches refresh every second against the session service, and sessions expire
 * after 6 s without use. An ended session's router cursor is killed; an idle session leaves the sessions collection and
 * its shard's transaction-table row is reaped, so a resend of its retryable insert runs again (a duplicate key); a
 * session kept alive with {@code refreshSessions} keeps both, and its resend is still answered from history.
 */
class LogicalSessionsIT {
    private static final String DB = "sessionsit";
    private static MigrationCluster c;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> c == null ? null : c.cluster);

    @BeforeAll
    static void startCluster() throws Exception {
        c = MigrationCluster.start("logical-sessions-it", 1900, 1, List.of(
                "-Dshardstore.sessions.cache.refresh-interval=1s", "-Dshardstore.sessions.cache.timeout=6s",
                "-Dshardstore.sessions.timeout=6s", "-Dshardstore.sessions.reap-interval=1s"));
        c.shardAndFill(DB, "c", 300, 150);
    }

    @AfterAll
    static void stopCluster() {
        if (c != null) {
            c.close();
        }
    }

    private static BsonDocument insertWith(LogicalSessionId lsid, int id) {
        return ExtendedJson.parse("{\"insert\": \"c\", \"documents\": [{\"_id\": " + id + ", \"x\": " + id + "}]}")
                .append("lsid", lsid.toBson()).append("txnNumber", new BsonInt64(1));
    }

    private static List<BsonDocument> storedSessions() {
        return c.ok("config", "{\"aggregate\": \"system.sessions\", \"pipeline\": [{\"$listSessions\": {}}], \"cursor\": {}}")
                .getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
    }

    private static boolean stored(LogicalSessionId lsid) {
        return storedSessions().stream().anyMatch(s -> s.getDocument("_id").equals(lsid.toBson()));
    }

    private static boolean duplicateKey(BsonDocument reply) {
        return reply.containsKey("writeErrors") && reply.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue() == 11000;
    }

    @Test
    void anEndedSessionsCursorIsKilled() throws Exception {
        LogicalSessionId lsid = LogicalSessionId.random();
        BsonDocument opened = c.ok(DB, "{\"find\": \"c\", \"batchSize\": 2, \"lsid\": " + lsid.toBson().toJson() + "}");
        long id = opened.getDocument("cursor").getNumber("id").longValue();
        assertThat(id).isNotZero();
        waitUntil(() -> stored(lsid), Duration.ofSeconds(60), "the session in the sessions collection");

        c.ok("admin", "{\"endSessions\": [" + lsid.toBson().toJson() + "]}");

        waitUntil(() -> {
            BsonDocument more = c.router.run(DB, ExtendedJson.parse("{\"getMore\": " + id + ", \"collection\": \"c\", \"batchSize\": 2}"));
            return more.isNumber("code") && more.getNumber("code").intValue() == 43;
        }, Duration.ofSeconds(60), "the ended session's cursor killed");
        waitUntil(() -> !stored(lsid), Duration.ofSeconds(60), "the ended session out of the sessions collection");
    }

    @Test
    void anIdleSessionExpiresAndItsHistoryIsReapedWhileARefreshedOneKeepsItsOwn() throws Exception {
        LogicalSessionId idle = LogicalSessionId.random();
        LogicalSessionId kept = LogicalSessionId.random();
        assertThat(c.ok(DB, insertWith(idle, 10_001).toJson()).getNumber("n").intValue()).isEqualTo(1);
        assertThat(c.ok(DB, insertWith(kept, 10_002).toJson()).getNumber("n").intValue()).isEqualTo(1);
        assertThat(duplicateKey(c.router.run(DB, insertWith(idle, 10_001)))).as("answered from history").isFalse();

        // the kept session is refreshed every 500 ms for at least 15 s and until the idle one has expired
        Instant until = Instant.now().plusSeconds(15);
        AtomicBoolean idleExpired = new AtomicBoolean();
        await("the idle session expires").atMost(Duration.ofSeconds(75)).pollInterval(Duration.ofMillis(500)).until(() -> {
            c.ok("admin", "{\"refreshSessions\": [" + kept.toBson().toJson() + "]}");
            if (!stored(idle)) {
                idleExpired.set(true);
            }
            return idleExpired.get() && !Instant.now().isBefore(until);
        });
        waitUntil(() -> duplicateKey(c.router.run(DB, insertWith(idle, 10_001))), Duration.ofSeconds(60),
                "the expired session's transaction-table row reaped, so its resend runs again");

        assertThat(stored(kept)).isTrue();
        BsonDocument keptRetry = c.router.run(DB, insertWith(kept, 10_002));
        assertThat(duplicateKey(keptRetry)).as("still answered from history: %s", keptRetry.toJson()).isFalse();
        assertThat(c.count(DB, "c")).isEqualTo(302);
    }
}
