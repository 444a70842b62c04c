package dev.shardstore.engine.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.Sort;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExternalSorterTest {
    private static final Sort BY_SORT = Sort.parse(BsonDocument.parse("{k: 1}"));
    private static final Comparator<BsonDocument> BY_K = Comparator.comparingInt(d -> d.getInt32("k").getValue());

    @TempDir
    Path dir;

    /** 5000 documents with 50 distinct keys, in random order; {@code seq} numbers their arrival. */
    private static List<BsonDocument> documents() {
        Random random = new Random(7);
        List<BsonDocument> docs = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            docs.add(new BsonDocument("k", new BsonInt32(random.nextInt(50))).append("seq", new BsonInt32(i))
                    .append("pad", new BsonString("x".repeat(random.nextInt(40)))));
        }
        return docs;
    }

    /** An interruption that fires from its {@code after}-th check on (a killOp seen by the sorter's next check). */
    private static final class KilledAfter implements Interruption {
        private final int after;
        private int checks;
        private int beforeMerges;

        KilledAfter(int after) {
            this.after = after;
        }

        @Override
        public void check() {
            if (++checks >= after) {
                throw new CommandException(ErrorCode.Interrupted, "operation was interrupted");
            }
        }

        @Override
        public void beforeMerge() {
            beforeMerges++;
            check();
        }
    }

    @Test
    void anInterruptionWhileDocumentsAreAddedStopsTheSortAndDeletesItsRuns() {
        SpillDirectory spill = SpillDirectory.open(dir);
        KilledAfter killed = new KilledAfter(20); // 20 checks: 2,560 documents added, runs on disk
        ExternalSorter sorter = new ExternalSorter("$sort", BY_K, Long.MAX_VALUE, 4096, spill, new SpillStats(), killed);
        List<BsonDocument> docs = documents();
        assertThatThrownBy(() -> docs.forEach(sorter::add)).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.Interrupted));
        assertThat(killed.checks).isEqualTo(20);
        assertThat(spill.files()).as("the interrupted sorter closed itself").isEmpty();
    }

    @Test
    void anInterruptionBeforeOrDuringTheMergeDeletesTheRuns() {
        SpillDirectory spill = SpillDirectory.open(dir);
        List<BsonDocument> docs = documents();
        int checksWhileAdding = (docs.size() - 1) / ExternalSorter.CHECK_INTERVAL;
        KilledAfter beforeMerge = new KilledAfter(checksWhileAdding + 1);
        ExternalSorter held = new ExternalSorter("$sort", BY_K, Long.MAX_VALUE, 4096, spill, new SpillStats(), beforeMerge);
        docs.forEach(held::add);
        assertThat(spill.files()).isNotEmpty();
        assertThatThrownBy(held::sorted).isInstanceOf(CommandException.class);
        assertThat(beforeMerge.beforeMerges).isEqualTo(1);
        assertThat(spill.files()).isEmpty();

        KilledAfter duringMerge = new KilledAfter(checksWhileAdding + 1 + 3); // the third check of the merge
        ExternalSorter merging = new ExternalSorter("$sort", BY_K, Long.MAX_VALUE, 4096, spill, new SpillStats(), duringMerge);
        docs.forEach(merging::add);
        Stream<BsonDocument> sorted = merging.sorted();
        assertThatThrownBy(sorted::toList).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.Interrupted));
        assertThat(spill.files()).isEmpty();
    }

    @Test
    void overTheBudgetSpillsRunsAndMergesThemStablyIntoTheInMemoryOrder() {
        SpillDirectory spill = SpillDirectory.open(dir);
        SpillStats stats = new SpillStats();
        List<BsonDocument> docs = documents();
        List<BsonDocument> expected = docs.stream().sorted(BY_K).toList(); // List.sort is stable: seq ascending per key
        try (ExternalSorter sorter = new ExternalSorter("$sort", BY_K, Long.MAX_VALUE, 4096, spill, stats, Interruption.NONE)) {
            docs.forEach(sorter::add);
            assertThat(spill.files()).isNotEmpty();
            try (Stream<BsonDocument> sorted = sorter.sorted()) {
                assertThat(sorted.toList()).isEqualTo(expected);
            }
        }
        assertThat(stats.usedDisk()).isTrue();
        assertThat(stats.spills()).isGreaterThan(10);
        assertThat(stats.spilledBytes()).isGreaterThan(100_000);
        assertThat(spill.files()).isEmpty();
    }

    @Test
    void sortersUnderTheirBudgetsSpillOnceTogetherTheyHoldMoreThanTheServicesPoolAndGiveItBackWhenClosed() {
        SpillDirectory spill = SpillDirectory.open(dir);
        MemoryPool pool = new MemoryPool(() -> 512 * 1024);
        SpillStats statsA = new SpillStats();
        SpillStats statsB = new SpillStats();
        SpillStats alone = new SpillStats();
        long budget = 100L * 1024 * 1024; // far above what each holds: only the pool makes them spill
        List<BsonDocument> docs = new ArrayList<>();
        Random random = new Random(11);
        for (int i = 0; i < 3000; i++) {
            docs.add(new BsonDocument("k", new BsonInt32(random.nextInt(1000))).append("pad", new BsonString("y".repeat(1000))));
        }
        try (ExternalSorter a = new ExternalSorter("$sort", BY_K, Long.MAX_VALUE, budget, spill, statsA, Interruption.NONE, pool);
             ExternalSorter b = new ExternalSorter("$sort", BY_K, Long.MAX_VALUE, budget, spill, statsB, Interruption.NONE, pool);
             ExternalSorter unpooled = new ExternalSorter("$sort", BY_K, Long.MAX_VALUE, budget, spill, alone, Interruption.NONE)) {
            for (BsonDocument doc : docs) {
                a.add(doc);
                b.add(doc);
                unpooled.add(doc);
                assertThat(pool.held()).as("at most the pool and a minimum run per sorter").isLessThanOrEqualTo(512 * 1024
                        + 2 * ExternalSorter.MIN_POOLED_RUN_BYTES + 2 * 1100);
            }
            assertThat(statsA.spills()).isGreaterThan(0);
            assertThat(statsB.spills()).isGreaterThan(0);
            assertThat(alone.usedDisk()).as("a sorter outside the pool holds its whole input under its budget").isFalse();
            List<BsonDocument> expected = docs.stream().sorted(BY_K).toList();
            try (Stream<BsonDocument> sorted = a.sorted()) {
                assertThat(sorted.map(d -> d.getInt32("k").getValue()).toList()).isEqualTo(expected.stream().map(d -> d.getInt32("k").getValue()).toList());
            }
        }
        assertThat(pool.held()).as("everything given back once closed").isZero();
        assertThat(spill.files()).isEmpty();
    }

    @Test
    void underAPoolOthersFilledASorterHoldsAMinimumRunBeforeItSpills() {
        SpillDirectory spill = SpillDirectory.open(dir);
        MemoryPool pool = new MemoryPool(() -> 1);
        pool.take(10); // full before the sorter starts
        SpillStats stats = new SpillStats();
        try (ExternalSorter sorter = new ExternalSorter("$sort", BY_K, Long.MAX_VALUE, 100L * 1024 * 1024, spill, stats, Interruption.NONE, pool)) {
            documents().forEach(sorter::add); // about 100 KB in all, under the minimum run
            assertThat(stats.usedDisk()).as("no run of a document each").isFalse();
            assertThat(pool.held()).isGreaterThan(10);
        }
        assertThat(pool.held()).isEqualTo(10);
    }

    @Test
    void aTopKSortKeepsOnlyTheBestAcrossRuns() {
        SpillDirectory spill = SpillDirectory.open(dir);
        List<BsonDocument> docs = documents();
        try (ExternalSorter sorter = new ExternalSorter("find", BY_K, 700, 4096, spill, new SpillStats(), Interruption.NONE)) {
            docs.forEach(sorter::add);
            try (Stream<BsonDocument> sorted = sorter.sorted()) {
                assertThat(sorted.toList()).isEqualTo(docs.stream().sorted(BY_K).limit(700).toList());
            }
        }
        assertThat(spill.files()).isEmpty();
    }

    @Test
    void withoutDiskUseOverTheBudgetIs292AndWithinItNothingIsWritten() {
        SpillDirectory spill = SpillDirectory.open(dir);
        ExternalSorter refused = new ExternalSorter("$sort", BY_K, Long.MAX_VALUE, 4096, null, new SpillStats(), Interruption.NONE);
        assertThatThrownBy(() -> documents().forEach(refused::add)).isInstanceOf(CommandException.class)
                .hasMessageContaining("Sort exceeded memory limit of 4096 bytes, but did not opt in to external sorting")
                .satisfies(e -> assertThat(((CommandException) e).code()).isEqualTo(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed));
        SpillStats stats = new SpillStats();
        try (ExternalSorter small = new ExternalSorter("$sort", BY_K, Long.MAX_VALUE, 1 << 30, spill, stats, Interruption.NONE)) {
            documents().subList(0, 100).forEach(small::add);
            assertThat(small.sorted().toList()).hasSize(100);
        }
        assertThat(stats.usedDisk()).isFalse();
        assertThat(spill.files()).isEmpty();
    }

    @Test
    void closingBeforeTheEndDeletesTheRuns() {
        SpillDirectory spill = SpillDirectory.open(dir);
        ExternalSorter sorter = new ExternalSorter("$sort", BY_K, Long.MAX_VALUE, 4096, spill, new SpillStats(), Interruption.NONE);
        documents().forEach(sorter::add);
        try (Stream<BsonDocument> sorted = sorter.sorted()) {
            assertThat(sorted.limit(3).toList()).hasSize(3);
        }
        assertThat(spill.files()).isEmpty();
    }

    @Test
    void openingTheDirectoryDeletesAPreviousProcesssLeftovers() throws IOException {
        Path leftover = Files.writeString(dir.resolve("sort123.spill"), "runs of a killed process");
        Path other = Files.writeString(dir.resolve("notes.txt"), "not a spill file");
        SpillDirectory spill = SpillDirectory.open(dir);
        assertThat(leftover).doesNotExist();
        assertThat(other).exists();
        assertThat(spill.files()).isEmpty();
    }

    // the in-memory cases of the blocking find sort this sorter replaced (shard-service's SortBuffer)

    @Test
    void keepsOnlyTheBestWhenLimitedAndTiesKeepArrivalOrder() {
        ExternalSorter sorter = new ExternalSorter("find", BY_SORT.comparator(), 3, 1000, null, new SpillStats(), Interruption.NONE);
        for (int i = 0; i < 10; i++) {
            sorter.add(doc(i, 9 - i), 100);
        }
        sorter.add(doc(100, 1), 100);

        assertThat(sorter.sorted().toList()).extracting(d -> d.getInt32("_id").getValue()).containsExactly(9, 8, 100);
    }

    @Test
    void failsWhenRetainedDocumentsExceedTheLimit() {
        ExternalSorter sorter = new ExternalSorter("find", BY_SORT.comparator(), Long.MAX_VALUE, 250, null, new SpillStats(), Interruption.NONE);
        sorter.add(doc(1, 1), 100);
        sorter.add(doc(2, 2), 100);

        assertThatThrownBy(() -> sorter.add(doc(3, 3), 100)).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed));
    }

    @Test
    void topKCountsOnlyWhatItKeeps() {
        ExternalSorter sorter = new ExternalSorter("find", BY_SORT.comparator(), 2, 250, null, new SpillStats(), Interruption.NONE);
        for (int i = 0; i < 50; i++) {
            sorter.add(doc(i, i), 100);
        }
        assertThat(sorter.sorted().toList()).hasSize(2);
        assertThat(sorter.sorted().toList()).isEqualTo(List.of());
    }

    private static BsonDocument doc(int id, int k) {
        return new BsonDocument("_id", new BsonInt32(id)).append("k", new BsonInt32(k));
    }

    @Test
    void aProcesssOwnDirectoryReplacesThoseOfProcessesThatNoLongerRun() throws IOException {
        Path dead = Files.createDirectories(dir.resolve(Integer.toString(Integer.MAX_VALUE))); // above any pid_max
        Files.writeString(dead.resolve("group1.spill"), "runs of a killed process");
        Path alive = Files.createDirectories(dir.resolve(Long.toString(ProcessHandle.current().parent().orElseThrow().pid())));
        SpillDirectory spill = SpillDirectory.forProcess(dir);
        assertThat(spill.path()).isEqualTo(dir.resolve(Long.toString(ProcessHandle.current().pid())).toAbsolutePath());
        assertThat(dead).doesNotExist();
        assertThat(alive).exists();
    }
}
