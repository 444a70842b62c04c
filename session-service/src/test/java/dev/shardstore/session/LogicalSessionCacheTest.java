package dev.shardstore.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.session.SessionsApi;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.session.store.SessionReaper;
import dev.shardstore.session.store.SessionsCollection;
import dev.shardstore.support.session.LogicalSessionCache;
import dev.shardstore.support.session.LogicalSessionCacheProperties;
import dev.shardstore.support.testing.MutableClock;
import dev.shardstore.transport.http.CommandClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A node's {@link LogicalSessionCache} against the real session service (HTTP, PostgreSQL): the refresh's four steps
 * (mongo/src/mongo/db/s/README.md "How the logical session cache syncs with the sessions collection") — used sessions upserted, ended ones
 * removed, expired ones dropped from the cache, and the listeners told which sessions are gone — and the TTL: a session
 * idle longer than the timeout is deleted by the reaper while one refreshed meanwhile survives. Sessions expire after 2 s
 * here, on a test clock the TTL test moves; refreshes and expiry runs are called by the test, never by the timers (an hour).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "shardstore.sessions.timeout=2s", "shardstore.sessions.reap-interval=1h"})
class LogicalSessionCacheTest {
    @LocalServerPort
    int port;
    @Autowired
    SessionsCollection stored;
    @Autowired
    SessionServiceProperties properties;

    private final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(10));
    private final List<Set<LogicalSessionId>> gone = new CopyOnWriteArrayList<>();
    private LogicalSessionCache cache;

    @DynamicPropertySource
    static void infra(DynamicPropertyRegistry registry) {
        EmbeddedInfra.shared().springProperties("sessions_cache_test").forEach((k, v) -> registry.add(k, () -> v));
    }

    @BeforeEach
    void newCache() {
        stored.remove(stored.all().stream().map(SessionsCollection.StoredSession::lsid).toList());
        cache = new LogicalSessionCache(client, new LogicalSessionCacheProperties(true, "http://127.0.0.1:" + port,
                Duration.ofHours(1), Duration.ofSeconds(2)), Clock.systemUTC());
        cache.onSessionsGone(gone::add);
    }

    @AfterEach
    void close() {
        cache.close();
        client.close();
    }

    private List<LogicalSessionId> listed() {
        BsonDocument reply = client.runChecked("sessions", "http://127.0.0.1:" + port, "config", new BsonDocument(SessionsApi.LIST, new BsonInt32(1)));
        return SessionsApi.records(reply, "sessions").stream().map(SessionsApi.SessionRecord::lsid).toList();
    }

    @Test
    void aRefreshUpsertsUsedSessionsAndRemovesEndedOnesWhoseCursorsAreThenKilled() {
        LogicalSessionId a = LogicalSessionId.random();
        LogicalSessionId b = LogicalSessionId.random();
        cache.vivify(a);
        cache.vivify(b);

        LogicalSessionCache.RefreshResult first = cache.refresh();

        assertThat(first.refreshed()).isEqualTo(2);
        assertThat(listed()).containsExactlyInAnyOrder(a, b);
        assertThat(gone).isEmpty();

        cache.end(List.of(a));
        assertThat(cache.localSessions()).extracting(SessionsApi.SessionRecord::lsid).containsExactly(b);
        LogicalSessionCache.RefreshResult second = cache.refresh();

        assertThat(second.ended()).isEqualTo(1);
        assertThat(listed()).containsExactly(b);
        assertThat(gone).containsExactly(Set.of(a));
    }

    @Test
    void anIdleSessionExpiresAndLeavesTheCacheWhileARefreshedOneStays() {
        // the node's cache and the reaper read one test clock: the 2 s timeout passes when the test says so
        MutableClock clock = MutableClock.at(Instant.now());
        cache.close();
        cache = new LogicalSessionCache(client, new LogicalSessionCacheProperties(true, "http://127.0.0.1:" + port,
                Duration.ofHours(1), Duration.ofSeconds(2)), clock);
        cache.onSessionsGone(gone::add);
        SessionReaper reaper = new SessionReaper(stored, properties, clock);
        LogicalSessionId idle = LogicalSessionId.random();
        LogicalSessionId refreshed = LogicalSessionId.random();
        cache.vivify(idle);
        cache.vivify(refreshed);
        cache.refresh();

        clock.advance(Duration.ofMillis(1_500));
        cache.vivify(refreshed); // refreshSessions, or any command with its lsid
        cache.refresh();
        clock.advance(Duration.ofMillis(1_000));
        int expired = reaper.expire();

        assertThat(expired).isEqualTo(1);
        assertThat(listed()).containsExactly(refreshed);
        LogicalSessionCache.RefreshResult result = cache.refresh();
        assertThat(result.expired()).containsExactly(idle);
        assertThat(cache.localSessions()).extracting(SessionsApi.SessionRecord::lsid).containsExactly(refreshed);
        assertThat(gone).containsExactly(Set.of(idle));
        assertThat(cache.stillStored(List.of(idle, refreshed))).containsExactly(refreshed);
    }

    @Test
    void twoNodesReportingOneSessionKeepItsNewestLastUse() throws Exception {
        LogicalSessionId shared = LogicalSessionId.random();
        List<LogicalSessionCache> nodes = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(4)) {
            for (int i = 0; i < 4; i++) {
                LogicalSessionCache node = new LogicalSessionCache(client, new LogicalSessionCacheProperties(true, "http://127.0.0.1:" + port,
                        Duration.ofHours(1), Duration.ofSeconds(2)), Clock.systemUTC());
                nodes.add(node);
                threads.submit(() -> {
                    for (int round = 0; round < 20; round++) {
                        node.vivify(shared);
                        node.refresh();
                    }
                    return null;
                });
            }
        }
        java.time.Instant newest = nodes.stream().flatMap(n -> n.localSessions().stream()).map(SessionsApi.SessionRecord::lastUse)
                .max(java.time.Instant::compareTo).orElseThrow();
        nodes.forEach(LogicalSessionCache::close);

        assertThat(stored.all()).singleElement().satisfies(s -> {
            assertThat(s.lsid()).isEqualTo(shared);
            assertThat(s.lastUse().toEpochMilli()).isEqualTo(newest.toEpochMilli());
        });
    }
}
