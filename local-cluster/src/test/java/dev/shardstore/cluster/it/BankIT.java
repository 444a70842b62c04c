package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ReadConcern;
import com.mongodb.TransactionOptions;
import com.mongodb.WriteConcern;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.shardstore.cluster.ClusterOptions;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.RepoLayout;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.ErrorCode;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The bank test of cross-shard transactions (separate processes: 3 shards, 2 routers, ports offset 3400;
 * mongo/src/mongo/db/s/README.md "Transactions"): 100 accounts of 1,000 on three shards (ranged key {@code acct},
 * one chunk on each), 8 Java-driver clients over both routers moving money between random accounts with
 * {@code withTransaction}, each transfer also inserting its own history document, while 2 readers sum every balance
 * in snapshot transactions. Every sum a reader gets equals the total; at the end the total holds, every transfer a
 * client saw committed has its history document, and each account's balance is exactly what the history documents
 * say (so every transfer applied whole or not at all). Then again while the coordinator's or a participant's shard
 * and a router are killed ({@code kill -9}) and restarted under the load: the driver retries through the other router
 * (a commit's retry carries the recoveryToken), and the same checks hold.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BankIT {
    private static final String DB = "bank";
    private static final int ACCOUNTS = 100;
    private static final int OPENING = 1_000;
    private static final int WRITERS = 8;
    private static final int READERS = 2;
    private static LocalCluster cluster;
    private static RouterClient router;
    private static MongoClient driver;
    @RegisterExtension
    static final ThreadDumpOnFailure THREAD_DUMPS = new ThreadDumpOnFailure(() -> cluster);

    @BeforeAll
    static void accounts() throws Exception {
        List<String> jvm = new ArrayList<>(ClusterOptions.DEFAULT_SERVICE_JVM_OPTIONS);
        jvm.add("-Dshardstore.test-commands.enabled=true");
        cluster = LocalCluster.start(ClusterOptions.defaults(RepoLayout.detect()).withHome(Files.createTempDirectory("shardstore-bank-it-"))
                .withShards(3).withRouters(2).withPortOffset(3400).withServiceJvmOptions(jvm), line -> System.out.println("[cluster] " + line));
        router = new RouterClient(cluster.routerUrl(1), Duration.ofMinutes(2));
        ItSupport.ok(router, "admin", "{\"balancerStop\": 1}");
        ItSupport.ok(router, "admin", "{\"shardCollection\": \"bank.accounts\", \"key\": {\"acct\": 1}}");
        StringBuilder docs = new StringBuilder();
        for (int a = 0; a < ACCOUNTS; a++) {
            docs.append(a == 0 ? "" : ", ").append("{\"_id\": ").append(a).append(", \"acct\": ").append(a).append(", \"balance\": ")
                    .append(OPENING).append("}");
        }
        ItSupport.ok(router, DB, "{\"insert\": \"accounts\", \"documents\": [" + docs + "]}");
        ItSupport.ok(router, DB, "{\"create\": \"history\"}");
        for (int split : new int[] {34, 67}) {
            ItSupport.ok(router, "admin", "{\"split\": \"bank.accounts\", \"middle\": {\"acct\": " + split + "}}");
        }
        ItSupport.ok(router, "admin", "{\"moveChunk\": \"bank.accounts\", \"find\": {\"acct\": 34}, \"to\": \"shard2\", \"_waitForDelete\": true}");
        ItSupport.ok(router, "admin", "{\"moveChunk\": \"bank.accounts\", \"find\": {\"acct\": 67}, \"to\": \"shard3\", \"_waitForDelete\": true}");
        assertThat(ItSupport.chunksPerShard(router, "bank.accounts")).containsOnlyKeys("shard1", "shard2", "shard3");
        String hosts = cluster.connectionString(1).substring("mongodb://".length()) + "," + cluster.connectionString(2).substring("mongodb://".length());
        driver = MongoClients.create("mongodb://" + hosts + "/?appName=BankIT");
    }

    @AfterAll
    static void stop() {
        if (driver != null) {
            driver.close();
        }
        if (cluster != null) {
            cluster.stopAndDeleteData();
        }
    }

    /**
     * What one run of transfers and snapshot readers saw.
     *
     * @param readFailures the error code of each snapshot read that failed (-1 for a failure without a server code)
     */
    private record Run(Map<String, Boolean> transfers, List<Long> sums, List<Integer> readFailures) {}

    /**
     * Runs {@link #WRITERS} writers and {@link #READERS} readers until {@code during} returns, each writer doing at least
     * {@code minimumEach} transfers.
     */
    private static Run transferWhile(String tag, int minimumEach, Runnable during) throws Exception {
        MongoCollection<BsonDocument> accounts = driver.getDatabase(DB).getCollection("accounts", BsonDocument.class);
        MongoCollection<BsonDocument> history = driver.getDatabase(DB).getCollection("history", BsonDocument.class);
        Map<String, Boolean> transfers = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<Long> sums = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Integer> readFailures = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger done = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + READERS);
        List<Future<?>> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            writers.add(pool.submit(() -> {
                Random random = new Random(writer * 31L + tag.hashCode());
                for (int i = 0; i < minimumEach || !stop.get(); i++) {
                    int from = random.nextInt(ACCOUNTS);
                    int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                    int amount = 1 + random.nextInt(50);
                    String id = tag + "-" + writer + "-" + i;
                    transfers.put(id, false);
                    try (ClientSession session = driver.startSession()) {
                        session.withTransaction(() -> {
                            accounts.updateOne(session, Filters.eq("acct", from), Updates.inc("balance", -amount));
                            accounts.updateOne(session, Filters.eq("acct", to), Updates.inc("balance", amount));
                            history.insertOne(session, new BsonDocument("_id", new BsonString(id)).append("from", new BsonInt32(from))
                                    .append("to", new BsonInt32(to)).append("amount", new BsonInt32(amount)));
                            return null;
                        }, TransactionOptions.builder().writeConcern(WriteConcern.MAJORITY).build());
                        transfers.put(id, true);
                    } catch (RuntimeException e) { // its outcome is unknown to this client: the history documents tell
                        if (failures.incrementAndGet() <= 20) {
                            System.out.println("[bank-it] transfer " + id + " failed: " + e);
                        }
                    }
                    done.incrementAndGet();
                }
                return null;
            }));
        }
        List<Future<?>> readers = new ArrayList<>();
        for (int r = 0; r < READERS; r++) {
            readers.add(pool.submit(() -> {
                TransactionOptions snapshot = TransactionOptions.builder().readConcern(ReadConcern.SNAPSHOT).build();
                while (!stop.get()) {
                    try (ClientSession session = driver.startSession()) {
                        session.startTransaction(snapshot);
                        long sum = 0;
                        int seen = 0;
                        Map<Integer, Long> balances = new HashMap<>();
                        for (BsonDocument account : accounts.find(session).batchSize(30)) {
                            sum += account.getNumber("balance").longValue();
                            balances.put(account.getInt32("acct").getValue(), account.getNumber("balance").longValue());
                            seen++;
                        }
                        if (sum != (long) ACCOUNTS * OPENING || balances.size() != ACCOUNTS) {
                            explain(session, history, balances);
                        }
                        session.commitTransaction();
                        assertThat(seen).isEqualTo(ACCOUNTS);
                        sums.add(sum);
                    } catch (RuntimeException e) {
                        readFailures.add(e instanceof com.mongodb.MongoException m ? m.getCode() : -1);
                        if (readFailures.size() <= 10) {
                            System.out.println("[bank-it] snapshot read failed: " + e);
                        }
                    }
                }
                return null;
            }));
        }
        try {
            ItSupport.waitUntil(() -> done.get() >= WRITERS, Duration.ofSeconds(120), "the first transfers");
            during.run();
        } finally {
            stop.set(true);
            for (Future<?> writer : writers) {
                writer.get();
            }
            for (Future<?> reader : readers) {
                reader.get();
            }
            pool.shutdown();
        }
        return new Run(transfers, List.copyOf(sums), List.copyOf(readFailures));
    }

    /** Prints, for a snapshot whose sum is wrong, the accounts whose balance differs from the history read in it. */
    private static void explain(ClientSession session, MongoCollection<BsonDocument> history, Map<Integer, Long> balances) {
        Map<Integer, Long> implied = new HashMap<>();
        List<BsonDocument> transfers = new ArrayList<>();
        for (BsonDocument h : history.find(session)) {
            transfers.add(h);
            int amount = h.getInt32("amount").getValue();
            implied.merge(h.getInt32("from").getValue(), (long) -amount, Long::sum);
            implied.merge(h.getInt32("to").getValue(), (long) amount, Long::sum);
        }
        StringBuilder off = new StringBuilder();
        balances.forEach((acct, balance) -> {
            long want = OPENING + implied.getOrDefault(acct, 0L);
            if (balance != want) {
                off.append(" acct ").append(acct).append(": saw ").append(balance).append(", history says ").append(want).append(";");
            }
        });
        System.out.println("[bank-it] WRONG SUM at " + session.getOperationTime() + ":" + off + " (" + transfers.size() + " history documents)");
    }

    /** Every balance is what the opening balance and the history documents say, and the total holds. */
    private static void checkAgainstHistory(Run run) {
        Map<Integer, Long> expected = new HashMap<>();
        for (int a = 0; a < ACCOUNTS; a++) {
            expected.put(a, (long) OPENING);
        }
        Map<String, BsonDocument> recorded = new HashMap<>();
        // causally after every answered commit: a two-phase commit is answered once its decision is durable
        List<String> shards = List.of("shard1", "shard2", "shard3");
        BsonDocument first = RouterClient.requireOk("find history", router.run(DB, ItSupport.afterEveryShard(cluster, shards,
                ExtendedJson.parse("{\"find\": \"history\", \"batchSize\": 100000}"))));
        for (BsonDocument h : ItSupport.drain(router, DB, "history", first)) {
            assertThat(recorded.put(h.getString("_id").getValue(), h)).as("one history document per transfer").isNull();
            int amount = h.getInt32("amount").getValue();
            expected.merge(h.getInt32("from").getValue(), (long) -amount, Long::sum);
            expected.merge(h.getInt32("to").getValue(), (long) amount, Long::sum);
        }
        Map<Integer, Long> actual = new HashMap<>();
        BsonDocument all = RouterClient.requireOk("find accounts", router.run(DB, ItSupport.afterEveryShard(cluster, shards,
                ExtendedJson.parse("{\"find\": \"accounts\", \"batchSize\": 1000}"))));
        for (BsonDocument a : ItSupport.drain(router, DB, "accounts", all)) {
            actual.put(a.getInt32("acct").getValue(), a.getNumber("balance").longValue());
        }
        assertThat(actual).as("every balance is what the history says: each transfer applied whole or not at all").isEqualTo(expected);
        assertThat(actual.values().stream().mapToLong(Long::longValue).sum()).isEqualTo((long) ACCOUNTS * OPENING);
        run.transfers().forEach((id, committed) -> {
            if (committed) {
                assertThat(recorded).as("a transfer its client saw committed").containsKey(id);
            }
        });
        assertThat(run.sums()).as("every snapshot sum").isNotEmpty().containsOnly((long) ACCOUNTS * OPENING);
        long committed = run.transfers().values().stream().filter(c -> c).count();
        System.out.println("[bank-it] " + run.transfers().size() + " transfers, " + committed + " seen committed, " + recorded.size()
                + " history documents in all; " + run.sums().size() + " snapshot sums, " + run.readFailures().size() + " failed reads (by code: "
                + new java.util.TreeMap<>(run.readFailures().stream().collect(java.util.stream.Collectors.groupingBy(c -> c,
                java.util.stream.Collectors.counting()))) + ")");
    }

    @Test
    @Order(1)
    void transfersAcrossShardsKeepTheTotalAndEverySnapshotSumsToIt() throws Exception {
        Run run = transferWhile("calm", 15, () -> { });
        assertThat(run.transfers().values()).as("no fault: every transfer commits").containsOnly(true);
        // a snapshot older than a range deletion on a donor is StaleChunkHistory from that shard, labelled
        // TransientTransactionError for the client to retry (mongo/src/mongo/db/s/README.md "Transactions"); nothing else may fail
        assertThat(run.readFailures()).as("no fault: snapshot reads fail only with a snapshot error, also through a router"
                + " whose clock was behind").allSatisfy(code -> assertThat(code).isIn(ErrorCode.StaleChunkHistory.code(),
                ErrorCode.SnapshotTooOld.code()));
        checkAgainstHistory(run);
    }

    @Test
    @Order(2)
    void transfersSurviveKillsOfShardsAndARouter() throws Exception {
        Random random = new Random(42);
        List<String> killed = new ArrayList<>();
        Run run = transferWhile("faults", 5, () -> {
            for (String victim : List.of("shard" + (1 + random.nextInt(3)), "router1", "shard" + (1 + random.nextInt(3)))) {
                killed.add(victim);
                cluster.killService(victim);
                ItSupport.waitUntil(() -> cluster.status().stream().noneMatch(c -> c.component().name().equals(victim) && c.running()),
                        Duration.ofSeconds(30), victim + " gone");
                cluster.startService(victim);
            }
        });
        System.out.println("[bank-it] killed and restarted, in order: " + killed);
        checkAgainstHistory(run);
    }
}
