package dev.shardstore.cluster.bench;

import com.mongodb.ClientSessionOptions;
import com.mongodb.MongoException;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.BsonDocument;
import org.bson.BsonInt32;

/**
 * Cross-shard transactions against plain retryable writes, through the Java driver over the wire protocol (issue 36's
 * goals): {@code bench.accts} holds 200 accounts sharded on {@code {acct: 1}}, {@code [0, 100)} on one shard and
 * {@code [100, 200)} on the other. 8 client threads move money, in alternating rounds of {@value #ROUND_SECONDS} s:
 * <ul>
 *   <li>{@code retryable}: two retryable {@code updateOne}s, one on each shard (no atomicity);</li>
 *   <li>{@code txn-2}: the same two updates in one transaction (two-phase commit);</li>
 *   <li>{@code txn-1}: two updates of accounts on one shard in one transaction (a one-shard commit).</li>
 * </ul>
 * It prints transfers per second of each, the ratio of {@code txn-2} to {@code retryable}, and the p50/p99 of
 * {@code commitTransaction} for one- and two-shard transactions, at 8 clients and with a single client (the commit's
 * own path, no queueing on the cores); then plain retryable updates per second alone and
 * while 4 transactions are open on other accounts the whole round (each wrote its own account and commits when the
 * round is over), and the same for point reads in causally consistent sessions ({@code afterClusterTime}). A
 * benchmark, not a test: figures, no assertions.
 *
 * <pre>
 * ./cluster up --shards 2
 * ./mvnw -q -o -pl local-cluster test-compile
 * java -cp "local-cluster/target/test-classes:local-cluster/target/local-cluster.jar:local-cluster/target/lib/*" \
 *   dev.shardstore.cluster.bench.TransactionBenchmark mongodb://localhost:27017 shard1 shard2
 * </pre>
 */
public final class TransactionBenchmark {
    private static final int ROUND_SECONDS = 10;
    private static final int CLIENTS = 8;
    private static final int ACCOUNTS = 200;

    private TransactionBenchmark() {}

    /** What one round measured: transfers done, commit latencies (ns), transient retries. */
    private record Round(long transfers, List<Long> commitNanos, long retries) {}

    private enum Mode { RETRYABLE, TXN_TWO_SHARDS, TXN_ONE_SHARD }

    public static void main(String[] args) throws Exception {
        String uri = args.length > 0 ? args[0] : "mongodb://localhost:27017";
        String first = args.length > 1 ? args[1] : "shard1";
        String second = args.length > 2 ? args[2] : "shard2";
        try (MongoClient client = MongoClients.create(uri + "/?appName=TransactionBenchmark")) {
            setUp(client, first, second);
            MongoCollection<BsonDocument> accts = client.getDatabase("bench").getCollection("accts", BsonDocument.class);
            long[] transfers = new long[Mode.values().length];
            List<List<Long>> commits = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            long[] retries = new long[Mode.values().length];
            run(client, accts, Mode.RETRYABLE, 3); // warm-up
            for (int r = 0; r < 2; r++) {
                for (Mode mode : Mode.values()) {
                    Round round = run(client, accts, mode, ROUND_SECONDS);
                    transfers[mode.ordinal()] += round.transfers();
                    commits.get(mode.ordinal()).addAll(round.commitNanos());
                    retries[mode.ordinal()] += round.retries();
                }
            }
            double seconds = 2.0 * ROUND_SECONDS;
            for (Mode mode : Mode.values()) {
                System.out.printf("%-15s %7.1f transfers/s (%d transient retries)%s%n", mode, transfers[mode.ordinal()] / seconds,
                        retries[mode.ordinal()], mode == Mode.RETRYABLE ? "" : ", commitTransaction " + percentiles(commits.get(mode.ordinal())));
            }
            System.out.printf("two-shard transactions / two retryable writes: %.2f%n",
                    (double) transfers[Mode.TXN_TWO_SHARDS.ordinal()] / transfers[Mode.RETRYABLE.ordinal()]);
            // one client: the commit's own path, without the queueing of 8 clients on the host's cores
            List<Long> alone1 = new ArrayList<>();
            List<Long> alone2 = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                alone2.addAll(run(client, accts, Mode.TXN_TWO_SHARDS, ROUND_SECONDS / 2, 1).commitNanos());
                alone1.addAll(run(client, accts, Mode.TXN_ONE_SHARD, ROUND_SECONDS / 2, 1).commitNanos());
            }
            System.out.printf("one client: commitTransaction one shard %s, two shards %s%n", percentiles(alone1), percentiles(alone2));
            for (boolean causalReads : new boolean[] {false, true}) {
                long alone = 0;
                long beside = 0;
                for (int r = 0; r < 2; r++) {
                    alone += plainOps(client, accts, false, causalReads);
                    beside += plainOps(client, accts, true, causalReads);
                }
                System.out.printf("%s: %.1f/s alone, %.1f/s with 4 transactions open all along (ratio %.2f)%n",
                        causalReads ? "afterClusterTime point reads" : "plain retryable updates", alone / seconds, beside / seconds,
                        (double) beside / alone);
            }
        }
    }

    private static void setUp(MongoClient client, String first, String second) {
        client.getDatabase("bench").getCollection("accts").drop();
        var admin = client.getDatabase("admin");
        admin.runCommand(BsonDocument.parse("{shardCollection: 'bench.accts', key: {acct: 1}}"));
        List<BsonDocument> docs = new ArrayList<>();
        for (int a = 0; a < ACCOUNTS + 2 * CLIENTS; a++) { // the last ones are the open transactions' own
            docs.add(new BsonDocument("_id", new BsonInt32(a)).append("acct", new BsonInt32(a)).append("balance", new BsonInt32(1000)));
        }
        client.getDatabase("bench").getCollection("accts", BsonDocument.class).insertMany(docs);
        admin.runCommand(BsonDocument.parse("{split: 'bench.accts', middle: {acct: 100}}"));
        String owner = client.getDatabase("config").getCollection("chunks", BsonDocument.class).find().into(new ArrayList<>()).getFirst()
                .getString("shard").getValue();
        admin.runCommand(BsonDocument.parse("{moveChunk: 'bench.accts', find: {acct: 100}, to: '" + (owner.equals(first) ? second : first)
                + "', _waitForDelete: true}"));
    }

    private static Round run(MongoClient client, MongoCollection<BsonDocument> accts, Mode mode, int seconds) throws Exception {
        return run(client, accts, mode, seconds, CLIENTS);
    }

    private static Round run(MongoClient client, MongoCollection<BsonDocument> accts, Mode mode, int seconds, int clients) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<Future<Round>> futures = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int seed = c;
            futures.add(pool.submit(() -> {
                Random random = new Random(seed);
                long done = 0;
                long retries = 0;
                List<Long> commits = new ArrayList<>();
                try (ClientSession session = client.startSession()) {
                    while (System.nanoTime() < end) {
                        int from = random.nextInt(100);
                        int to = mode == Mode.TXN_ONE_SHARD ? (from + 1 + random.nextInt(99)) % 100 : 100 + random.nextInt(100);
                        if (mode == Mode.RETRYABLE) {
                            accts.updateOne(session, Filters.eq("acct", from), Updates.inc("balance", -1));
                            accts.updateOne(session, Filters.eq("acct", to), Updates.inc("balance", 1));
                            done++;
                            continue;
                        }
                        try {
                            session.startTransaction();
                            accts.updateOne(session, Filters.eq("acct", from), Updates.inc("balance", -1));
                            accts.updateOne(session, Filters.eq("acct", to), Updates.inc("balance", 1));
                            long start = System.nanoTime();
                            session.commitTransaction();
                            commits.add(System.nanoTime() - start);
                            done++;
                        } catch (MongoException e) {
                            if (session.hasActiveTransaction()) {
                                session.abortTransaction();
                            }
                            if (!e.hasErrorLabel("TransientTransactionError")) {
                                throw e;
                            }
                            retries++;
                        }
                    }
                }
                return new Round(done, commits, retries);
            }));
        }
        long transfers = 0;
        long retries = 0;
        List<Long> commits = new ArrayList<>();
        for (Future<Round> f : futures) {
            Round r = f.get();
            transfers += r.transfers();
            retries += r.retries();
            commits.addAll(r.commitNanos());
        }
        pool.shutdown();
        return new Round(transfers, commits, retries);
    }

    /**
     * Plain retryable updates (or, with {@code causalReads}, point reads in causally consistent sessions, which carry
     * {@code afterClusterTime}) of random accounts by {@link #CLIENTS} threads for a round; with {@code beside}, 4 more
     * transactions are open the whole round, each having written its own account, and commit once it is over.
     *
     * @return the operations done
     */
    private static long plainOps(MongoClient client, MongoCollection<BsonDocument> accts, boolean beside, boolean causalReads)
            throws Exception {
        int holding = beside ? 4 : 0;
        CountDownLatch opened = new CountDownLatch(holding);
        CountDownLatch roundOver = new CountDownLatch(1);
        ExecutorService holders = Executors.newFixedThreadPool(4);
        List<Future<?>> held = new ArrayList<>();
        for (int h = 0; h < holding; h++) {
            int own = ACCOUNTS + h;
            held.add(holders.submit(() -> {
                try (ClientSession session = client.startSession()) {
                    session.startTransaction();
                    accts.updateOne(session, Filters.eq("acct", own), Updates.inc("balance", 0));
                    opened.countDown();
                    roundOver.await(); // open, idle, for the whole round: what the plain operations must not notice
                    session.commitTransaction();
                }
                return null;
            }));
        }
        opened.await();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        long end = System.nanoTime() + ROUND_SECONDS * 1_000_000_000L;
        List<Future<Long>> futures = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int seed = c;
            futures.add(pool.submit(() -> {
                Random random = new Random(seed + 100);
                long done = 0;
                try (ClientSession session = client.startSession(ClientSessionOptions.builder().causallyConsistent(true).build())) {
                    while (System.nanoTime() < end) {
                        if (causalReads) {
                            accts.find(session, Filters.eq("acct", random.nextInt(ACCOUNTS))).first();
                        } else {
                            accts.updateOne(Filters.eq("acct", random.nextInt(ACCOUNTS)), Updates.inc("balance", 0));
                        }
                        done++;
                    }
                }
                return done;
            }));
        }
        long total = 0;
        for (Future<Long> f : futures) {
            total += f.get();
        }
        roundOver.countDown();
        for (Future<?> f : held) {
            f.get();
        }
        pool.shutdown();
        holders.shutdown();
        return total;
    }

    private static String percentiles(List<Long> nanos) {
        if (nanos.isEmpty()) {
            return "(none)";
        }
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        return String.format("p50 %.1f ms, p99 %.1f ms (%d commits)", sorted.get(sorted.size() / 2) / 1e6,
                sorted.get(Math.min(sorted.size() - 1, (int) (sorted.size() * 0.99))) / 1e6, sorted.size());
    }
}
