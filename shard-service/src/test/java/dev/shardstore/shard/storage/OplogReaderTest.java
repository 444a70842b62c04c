package dev.shardstore.shard.storage;

import dev.shardstore.support.operation.OperationContext;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.OplogProperties;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.support.failpoint.FailPointAction;
import dev.shardstore.support.failpoint.FailPoints;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The oplog's read point against real PostgreSQL and real threads: commits that finish out of timestamp order are
 * never skipped, reservations end with their transactions however those end, times past 2038 sort last, and
 * retention keeps what pinned readers need.
 */
class OplogReaderTest extends ShardIntegrationTest {
    private static final OperationContext TEST = OperationContext.internal("test");
    private static final String DB = "oplogread";
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Autowired
    WriteUnitOfWork units;
    @Autowired
    DocumentStore store;
    @Autowired
    CollectionCatalog catalog;
    @Autowired
    OplogReader reader;
    @Autowired
    OplogTimeReservations clock;
    @Autowired
    FailPoints failPoints;
    @Autowired
    TransactionTemplate tx;

    @AfterEach
    void disarm() {
        failPoints.configure(WriteUnitOfWork.BEFORE_COMMIT, null, 0);
    }

    @Test
    void aCommitThatFinishesOutOfTimestampOrderIsNotSkipped() throws Exception {
        CollectionInfo c = collection("outOfOrder");
        BsonTimestamp start = reader.allDurable();
        long entered = failPoints.timesEntered(WriteUnitOfWork.BEFORE_COMMIT);
        failPoints.configure(WriteUnitOfWork.BEFORE_COMMIT, FailPointAction.pause(), 1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            // writer A reserves the lower time and is held open just before its commit
            Future<?> a = pool.submit(() -> insert(c, 1));
            assertThat(failPoints.awaitEntered(WriteUnitOfWork.BEFORE_COMMIT, entered + 1, WAIT)).isTrue();
            // writer B reserves the higher time and commits
            pool.submit(() -> insert(c, 2)).get(WAIT.toSeconds(), TimeUnit.SECONDS);

            List<Long> naiveSeen = new ArrayList<>(naiveRead(c.uuid(), start.getValue()));
            OplogReader.Batch whileOpen = reader.read(c.uuid(), start, null, 100);
            assertThat(naiveSeen).as("a reader without the read point sees B's entry already").hasSize(1);
            assertThat(whileOpen.entries()).as("B's entry is above the all-durable point while A is open").isEmpty();
            assertThat(Long.compareUnsigned(whileOpen.resumeAfter().getValue(), naiveSeen.getFirst())).isNegative();

            failPoints.configure(WriteUnitOfWork.BEFORE_COMMIT, null, 0);
            a.get(WAIT.toSeconds(), TimeUnit.SECONDS);

            naiveSeen.addAll(naiveRead(c.uuid(), naiveSeen.getLast()));
            List<OplogEntry> seen = new ArrayList<>(whileOpen.entries());
            seen.addAll(reader.read(c.uuid(), whileOpen.resumeAfter(), null, 100).entries());
            List<Long> committed = naiveRead(c.uuid(), start.getValue());

            assertThat(ids(seen)).containsExactly(1, 2);
            assertThat(seen.stream().map(e -> e.ts().getValue()).toList()).isEqualTo(committed);
            assertThat(naiveSeen).as("the naive reader skipped A's entry, which committed after B's")
                    .hasSize(1).doesNotContain(committed.getFirst());
        } finally {
            failPoints.configure(WriteUnitOfWork.BEFORE_COMMIT, null, 0);
            pool.shutdownNow();
        }
    }

    @Test
    void aReaderTailingRandomlyInterleavedWritersSeesEveryCommittedEntryOnceInOrder() throws Exception {
        CollectionInfo c = collection("tailed");
        BsonTimestamp start = reader.allDurable();
        int writers = 6;
        int perWriter = 25;
        Set<Integer> committed = ConcurrentHashMap.newKeySet();
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        try {
            Future<List<OplogEntry>> tail = pool.submit(() -> {
                List<OplogEntry> seen = new ArrayList<>();
                BsonTimestamp after = start;
                boolean last = false;
                while (!last) {
                    last = !writing.get(); // one more full pass after the writers are done
                    OplogReader.Batch batch;
                    do {
                        batch = reader.read(c.uuid(), after, null, 7);
                        seen.addAll(batch.entries());
                        after = batch.resumeAfter();
                    } while (!batch.entries().isEmpty());
                    pause(1); // back off while caught up
                }
                return seen;
            });
            List<Future<?>> writes = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                writes.add(pool.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < perWriter; i++) {
                        int id = writer * 1000 + i;
                        boolean rollBack = random.nextInt(6) == 0;
                        units.write(TEST, work -> {
                            store.insert(work, c, List.of(document(id)));
                            pause(random.nextInt(3));
                            if (rollBack) {
                                units.setRollbackOnly(work);
                            }
                            return null;
                        });
                        if (!rollBack) {
                            committed.add(id);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> write : writes) {
                write.get(60, TimeUnit.SECONDS);
            }
            writing.set(false);
            List<OplogEntry> seen = tail.get(60, TimeUnit.SECONDS);

            assertThat(ids(seen)).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(committed);
            assertThat(seen.stream().map(e -> e.ts().getValue()).toList()).isEqualTo(naiveRead(c.uuid(), start.getValue()));
            assertThat(clock.inFlight()).isZero();
        } finally {
            writing.set(false);
            pool.shutdownNow();
        }
    }

    @Test
    void aRollbackOrAnExceptionBeforeTheCommitReleasesTheReservation() {
        CollectionInfo c = collection("released");
        BsonTimestamp start = reader.allDurable();
        BsonTimestamp whileOpen = units.write(TEST, work -> {
            store.insert(work, c, List.of(document(1)));
            units.setRollbackOnly(work);
            return clock.allDurable();
        });
        assertThat(Long.compareUnsigned(whileOpen.getValue(), clock.latest().getValue())).as("held back while open").isNegative();
        assertReleased();

        assertThatThrownBy(() -> units.write(TEST, work -> {
            store.insert(work, c, List.of(document(2)));
            throw new IllegalStateException("fails between reserve and commit");
        })).hasMessageContaining("between reserve and commit");
        assertReleased();

        failPoints.configure(WriteUnitOfWork.BEFORE_COMMIT, FailPointAction.error(ErrorCode.OperationFailed), 1);
        BsonDocument reply = run(DB, "{insert: 'released', documents: [{_id: 3}]}");
        assertThat(reply.getNumber("code").intValue()).as(reply.toJson()).isEqualTo(ErrorCode.OperationFailed.code());
        assertReleased();

        assertThat(store.count(c)).isZero();
        assertThat(naiveRead(c.uuid(), start.getValue())).isEmpty();
    }

    @Test
    void oplogEntriesAreWrittenOnlyInsideAUnitThatOwnsItsTransaction() {
        CollectionInfo c = collection("outside");
        assertThatThrownBy(() -> store.insert(TEST, c, List.of(document(1))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("WriteUnitOfWork");
        assertThatThrownBy(() -> tx.execute(status -> units.write(TEST, work -> store.insert(work, c, List.of(document(2))))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("must own its transaction");
        assertThat(store.count(c)).isZero();
    }

    @Test
    void entriesPast2038AndUpTo2106SortAfterEarlierOnes() {
        UUID ui = UUID.randomUUID();
        long in2037 = ((1L << 31) - 1) << 32 | 1;
        long in2038 = (1L << 31) << 32 | 1;
        long in2106 = ((1L << 32) - 1) << 32 | 5;
        List<Long> read = tx.execute(status -> {
            status.setRollbackOnly(); // keep the shared oplog free of entries from the future
            for (long ts : List.of(in2106, in2037, in2038)) {
                jdbc.sql("INSERT INTO oplog (ts_key, op, ns, ui, o2) VALUES (?, 'd', 'oplogread.future', ?, ?)")
                        .param(Oplog.storedTs(ts)).param(ui).param(BsonBytes.encode(new BsonDocument("_id", new BsonInt32(1))))
                        .update();
            }
            return reader.read(ui, new BsonTimestamp(in2037 - 1), null, 10, new BsonTimestamp(-1L)).entries().stream()
                    .map(e -> e.ts().getValue()).toList();
        });
        assertThat(in2038).as("a signed bigint of the raw value would sort 2038 first").isNegative();
        assertThat(read).containsExactly(in2037, in2038, in2106);
    }

    @Test
    void retentionDeletesOldEntriesButNotThoseAPinnedReaderNeeds() {
        CollectionInfo c = collection("retained");
        BsonTimestamp start = reader.allDurable();
        for (int id = 1; id <= 3; id++) {
            insert(c, id);
        }
        List<BsonTimestamp> ts = reader.read(c.uuid(), start, null, 10).entries().stream().map(OplogEntry::ts).toList();
        OplogRetention realTime = new OplogRetention(reader, new OplogProperties(Duration.ofHours(24)));
        OplogRetention twoDaysLater = new OplogRetention(reader, new OplogProperties(Duration.ofHours(24)),
                Clock.offset(Clock.systemUTC(), Duration.ofHours(48)));

        realTime.truncate();
        assertThat(timesOf(c)).as("nothing is 24 hours old yet").containsExactlyElementsOf(ts);

        try (OplogReader.Pin pin = reader.pin(ts.get(0))) {
            twoDaysLater.truncate();
            assertThat(timesOf(c)).as("everything is old, but the pinned reader needs what follows its time")
                    .containsExactly(ts.get(1), ts.get(2));
            assertThat(reader.read(c.uuid(), ts.get(0), null, 10).entries()).extracting(OplogEntry::ts)
                    .containsExactly(ts.get(1), ts.get(2));
            assertCappedPositionLost(() -> reader.read(c.uuid(), start, null, 10));
            assertCappedPositionLost(() -> reader.pin(start));

            pin.advance(ts.get(1));
            twoDaysLater.truncate();
            assertThat(timesOf(c)).containsExactly(ts.get(2));
        }
        twoDaysLater.truncate();
        assertThat(timesOf(c)).as("the newest entry stays: the clock restarts above it").containsExactly(ts.get(2));

        insert(c, 4);
        twoDaysLater.truncate();
        assertThat(timesOf(c)).hasSize(1).doesNotContain(ts.get(2));
    }

    private CollectionInfo collection(String name) {
        return catalog.create(TEST, new Namespace(DB, name), new BsonDocument()).collection();
    }

    private void insert(CollectionInfo c, int id) {
        units.write(TEST, work -> store.insert(work, c, List.of(document(id))));
    }

    private static StoredDocument document(int id) {
        return StoredDocument.of(new BsonDocument("_id", new BsonInt32(id)).append("v", new BsonString("x")));
    }

    /**
     * The old way to tail: every entry of {@code ui} above the last time seen, with no read point (the times, in
     * order).
     */
    private List<Long> naiveRead(UUID ui, long after) {
        return jdbc.sql("SELECT ts_key FROM oplog WHERE ui = ? AND ts_key > ? ORDER BY ts_key")
                .param(ui).param(Oplog.storedTs(after))
                .query((rs, i) -> Oplog.tsOf(rs.getLong(1))).list();
    }

    /** The times of the document entries of {@code c} still in the oplog. */
    private List<BsonTimestamp> timesOf(CollectionInfo c) {
        return jdbc.sql("SELECT ts_key FROM oplog WHERE ui = ? AND op <> 'c' ORDER BY ts_key").param(c.uuid())
                .query((rs, i) -> new BsonTimestamp(Oplog.tsOf(rs.getLong(1)))).list();
    }

    private void assertReleased() {
        assertThat(clock.inFlight()).isZero();
        assertThat(clock.allDurable()).isEqualTo(clock.latest());
    }

    private static List<Integer> ids(List<OplogEntry> entries) {
        return entries.stream().map(e -> e.o2().getInt32("_id").getValue()).toList();
    }

    private static void assertCappedPositionLost(Runnable read) {
        assertThatThrownBy(read::run).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CappedPositionLost));
    }

    private static void pause(int millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A resharding donor pins its oplog at its minFetchTimestamp and serves its clone at cloneTimestamp for as long as
     * the clone takes: a snapshot time older than the history window passes the window's check while a pin at or before
     * it holds the entries after it, and only then (the 3M-flights resharding aborted with SnapshotTooOld after 300 s).
     */
    @Test
    void aSnapshotTimeOlderThanTheWindowPassesItsCheckOnlyWhileAPinAtOrBeforeItHoldsTheHistory() {
        OplogReader own = new OplogReader(jdbc, clock); // pins of its own: the context's readers may hold older ones
        BsonTimestamp at = own.allDurable();
        BsonTimestamp aSecondBefore = new BsonTimestamp(at.getTime() - 1, 0);
        // an hour after the time, by the shard's cluster time rather than the wall clock: other tests move it ahead
        VersionStore anHourLater = new VersionStore(jdbc, Duration.ofSeconds(300), new OplogProperties(Duration.ofHours(24)), own,
                Clock.fixed(java.time.Instant.ofEpochSecond(at.getTime()).plus(Duration.ofHours(1)), java.time.ZoneOffset.UTC));
        assertThatThrownBy(() -> anHourLater.checkWindow(at)).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.SnapshotTooOld));
        try (OplogReader.Pin pin = own.pin(at)) {
            anHourLater.checkWindow(at);
            assertThatThrownBy(() -> anHourLater.checkWindow(aSecondBefore)).as("before the pin: not held")
                    .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SnapshotTooOld));
        }
        assertThatThrownBy(() -> anHourLater.checkWindow(at)).as("the pin closed").isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.SnapshotTooOld));
    }
}
