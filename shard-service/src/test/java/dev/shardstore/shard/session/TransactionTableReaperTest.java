package dev.shardstore.shard.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.bson.Replies;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.session.SessionsApi;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.storage.SessionHistory;
import dev.shardstore.support.session.LogicalSessionCache;
import dev.shardstore.support.session.LogicalSessionCacheProperties;
import dev.shardstore.transport.http.CommandClient;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The shard's reap of its transactions table (mongo/src/mongo/db/s/README.md "Periodic cleanup of the session catalog and transactions
 * table"): a row last written longer ago than the session timeout is deleted when its session is gone from the sessions
 * collection, and kept when the session is still there or the row is recent. A retry of a reaped session's statement is
 * then no longer recognised and runs again (here: a duplicate key), while the live session's retry is still answered
 * from history. The session catalog's entries of gone sessions go too, unless a command holds them. The session service
 * is a stub that knows one session.
 */
class TransactionTableReaperTest extends ShardIntegrationTest {
    private static final String DB = "reap";

    @Autowired
    SessionHistory history;
    @Autowired
    SessionCatalog catalog;

    private static BsonDocument insert(int id, LogicalSessionId lsid) {
        return ExtendedJson.parse("{insert: 'c', documents: [{_id: " + id + "}]}").append("lsid", lsid.toBson())
                .append("txnNumber", new BsonInt64(1));
    }

    private boolean hasRow(LogicalSessionId lsid) {
        return jdbc.sql("SELECT count(*) FROM transactions WHERE lsid = ?").param(BsonBytes.encode(lsid.toBson())).query(Long.class).single() == 1;
    }

    @Test
    void rowsOfGoneSessionsOlderThanTheTimeoutAreReapedAndTheirRetriesRunAgain() throws Exception {
        LogicalSessionId alive = LogicalSessionId.random();
        LogicalSessionId gone = LogicalSessionId.random();
        LogicalSessionId recent = LogicalSessionId.random();
        run(DB, insert(1, alive));
        run(DB, insert(2, gone));
        run(DB, insert(3, recent));
        for (LogicalSessionId old : new LogicalSessionId[] {alive, gone}) {
            jdbc.sql("UPDATE transactions SET last_write_date = now() - interval '1 hour' WHERE lsid = ?").param(BsonBytes.encode(old.toBson())).update();
        }
        HttpServer sessionService = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        sessionService.createContext("/internal/v1/databases/", exchange -> {
            BsonDocument asked = BsonBytes.decode(exchange.getRequestBody().readAllBytes());
            BsonArray found = new BsonArray(SessionsApi.lsids(asked, "sessions").stream().filter(alive::equals)
                    .<BsonValue>map(LogicalSessionId::toBson).toList());
            byte[] reply = BsonBytes.encode(Replies.ok(new BsonDocument("found", found)));
            exchange.getResponseHeaders().add("Content-Type", "application/bson");
            exchange.sendResponseHeaders(200, reply.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(reply);
            }
        });
        sessionService.start();
        try (CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(10));
                LogicalSessionCache cache = new LogicalSessionCache(client, new LogicalSessionCacheProperties(true,
                        "http://127.0.0.1:" + sessionService.getAddress().getPort(), Duration.ofHours(1), Duration.ofMinutes(30)), Clock.systemUTC())) {
            new TransactionTableReaper(history, catalog, cache).reap(cache);
            // the session catalog: an entry held by a command survives a reap; once free, a gone session's entry goes
            Instant later = Instant.now().plusSeconds(1);
            try (SessionCatalog.CheckedOutSession held = catalog.checkOut(gone)) {
                catalog.reap(later, cache::stillStored);
                assertThat(catalog.size()).as("the stored session's entry and the held one").isEqualTo(2);
            }
            assertThat(catalog.reap(later, cache::stillStored)).isEqualTo(1);
            assertThat(catalog.size()).isEqualTo(1);
        } finally {
            sessionService.stop(0);
        }

        assertThat(hasRow(alive)).isTrue();
        assertThat(hasRow(recent)).as("written within the timeout").isTrue();
        assertThat(hasRow(gone)).isFalse();
        BsonDocument aliveRetry = run(DB, insert(1, alive));
        assertThat(aliveRetry.containsKey("writeErrors")).as(aliveRetry.toJson()).isFalse();
        BsonDocument goneRetry = run(DB, insert(2, gone));
        assertThat(goneRetry.getArray("writeErrors").get(0).asDocument().getInt32("code").getValue()).isEqualTo(11000);
        assertThat(Set.copyOf(documentsOf(DB, "c"))).hasSize(3);
    }
}
