package dev.shardstore.router.cursor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.query.Sort;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/** The merge of shard cursors, over in-memory fake shard cursors that record their getMores and kills. */
class MergingStreamTest {

    /** A shard cursor over a list, serving {@code batch} documents per getMore (or the asked batch size). */
    static final class FakeShardCursor implements ShardCursor {
        final String shard;
        final List<BsonDocument> rest;
        final int defaultBatch;
        int getMores;
        boolean killed;
        RuntimeException failure;

        FakeShardCursor(String shard, List<BsonDocument> rest, int defaultBatch) {
            this.shard = shard;
            this.rest = new ArrayList<>(rest);
            this.defaultBatch = defaultBatch;
        }

        @Override
        public String shardId() {
            return shard;
        }

        @Override
        public boolean exhausted() {
            return killed || rest.isEmpty();
        }

        @Override
        public List<BsonDocument> getMore(int batchSize) {
            assertThat(exhausted()).as("getMore on a closed cursor").isFalse();
            getMores++;
            if (failure != null) {
                throw failure;
            }
            int n = Math.min(rest.size(), batchSize > 0 ? batchSize : defaultBatch);
            List<BsonDocument> batch = new ArrayList<>(rest.subList(0, n));
            rest.subList(0, n).clear();
            return batch;
        }

        @Override
        public void kill() {
            if (!rest.isEmpty()) {
                killed = true;
            }
        }
    }

    private static BsonDocument doc(int x, String shard) {
        return new BsonDocument("x", new BsonInt32(x)).append("s", new BsonString(shard));
    }

    /** A shard's sorted documents split into a first batch of {@code first} and a cursor for the rest. */
    private static MergingStream.Source shard(String name, List<BsonDocument> docs, int first, int batch, List<FakeShardCursor> out) {
        FakeShardCursor cursor = new FakeShardCursor(name, docs.subList(Math.min(first, docs.size()), docs.size()), batch);
        out.add(cursor);
        return new MergingStream.Source(docs.subList(0, Math.min(first, docs.size())), cursor);
    }

    private static List<BsonDocument> drain(DocumentStream stream) {
        List<BsonDocument> out = new ArrayList<>();
        for (BsonDocument d = stream.next(0); d != null; d = stream.next(0)) {
            out.add(d);
        }
        return out;
    }

    private static final Comparator<BsonDocument> BY_X = Sort.parse(new BsonDocument("x", new BsonInt32(1))).comparator();

    @Test
    void aSortedMergeIsTheStableSortOfTheConcatenation() {
        Random random = new Random(7);
        for (int round = 0; round < 50; round++) {
            List<MergingStream.Source> sources = new ArrayList<>();
            List<BsonDocument> all = new ArrayList<>();
            List<FakeShardCursor> cursors = new ArrayList<>();
            for (int s = 0; s < 1 + random.nextInt(4); s++) {
                List<BsonDocument> docs = new ArrayList<>();
                for (int i = 0; i < random.nextInt(30); i++) {
                    docs.add(doc(random.nextInt(20), "s" + s));
                }
                docs.sort(BY_X);
                all.addAll(docs);
                sources.add(shard("s" + s, docs, random.nextInt(5), 1 + random.nextInt(4), cursors));
            }
            long skip = random.nextInt(10);
            long limit = random.nextInt(3) == 0 ? 0 : random.nextInt(25);
            List<BsonDocument> expected = all.stream().sorted(BY_X).skip(skip).limit(limit == 0 ? Long.MAX_VALUE : limit).toList();
            assertThat(drain(new MergingStream(sources, BY_X, skip, limit))).as("round " + round).isEqualTo(expected);
        }
    }

    @Test
    void anUnsortedMergeConcatenatesShardsInOrder() {
        List<FakeShardCursor> cursors = new ArrayList<>();
        List<BsonDocument> a = List.of(doc(3, "a"), doc(1, "a"), doc(2, "a"));
        List<BsonDocument> b = List.of(doc(9, "b"), doc(0, "b"));
        MergingStream stream = new MergingStream(List.of(shard("a", a, 1, 1, cursors), shard("b", b, 0, 1, cursors)), null, 1, 3);
        assertThat(drain(stream)).containsExactly(doc(1, "a"), doc(2, "a"), doc(9, "b"));
        assertThat(cursors.get(1).killed).as("the limit met leaves b's last document: its cursor is killed").isTrue();
    }

    @Test
    void shardsArePulledOnlyWhenTheirBufferRunsDry() {
        List<FakeShardCursor> cursors = new ArrayList<>();
        List<BsonDocument> a = List.of(doc(1, "a"), doc(2, "a"), doc(5, "a"), doc(6, "a"));
        List<BsonDocument> b = List.of(doc(3, "b"), doc(4, "b"), doc(7, "b"));
        MergingStream stream = new MergingStream(List.of(shard("a", a, 2, 2, cursors), shard("b", b, 1, 1, cursors)), BY_X, 0, 0);
        assertThat(stream.next(0)).isEqualTo(doc(1, "a"));
        assertThat(stream.next(0)).isEqualTo(doc(2, "a"));
        assertThat(cursors.get(0).getMores).as("first batches suffice so far").isZero();
        assertThat(cursors.get(1).getMores).isZero();
        assertThat(stream.next(0)).isEqualTo(doc(3, "b"));
        assertThat(cursors.get(0).getMores).as("a's buffer ran dry and the merge needed its head").isEqualTo(1);
        assertThat(stream.exhausted()).isFalse();
        assertThat(drain(stream)).containsExactly(doc(4, "b"), doc(5, "a"), doc(6, "a"), doc(7, "b"));
        assertThat(stream.exhausted()).isTrue();
    }

    @Test
    void theWantedCountBoundsTheGetMoreBatchSize() {
        List<FakeShardCursor> cursors = new ArrayList<>();
        List<BsonDocument> a = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            a.add(doc(i, "a"));
        }
        MergingStream stream = new MergingStream(List.of(shard("a", a, 0, 100, cursors)), null, 0, 5);
        assertThat(stream.next(3)).isEqualTo(doc(0, "a"));
        assertThat(cursors.getFirst().rest).as("a getMore of batchSize 3").hasSize(17);
        assertThat(RouterCursor.batch(stream, 10)).hasSize(4);
        assertThat(stream.exhausted()).isTrue();
        assertThat(cursors.getFirst().killed).isTrue();
    }

    @Test
    void closeKillsTheShardCursorsStillOpen() {
        List<FakeShardCursor> cursors = new ArrayList<>();
        MergingStream stream = new MergingStream(List.of(shard("a", List.of(doc(1, "a"), doc(2, "a")), 1, 1, cursors),
                shard("b", List.of(doc(0, "b")), 1, 1, cursors)), BY_X, 0, 0);
        assertThat(stream.next(0)).isEqualTo(doc(0, "b"));
        stream.close();
        assertThat(cursors.get(0).killed).isTrue();
        assertThat(cursors.get(1).killed).as("b was exhausted: nothing to kill").isFalse();
    }

    @Test
    void aShardErrorWhilePullingKillsTheOthersAndPropagates() {
        List<FakeShardCursor> cursors = new ArrayList<>();
        MergingStream stream = new MergingStream(List.of(shard("a", List.of(doc(1, "a"), doc(2, "a")), 0, 1, cursors),
                shard("b", List.of(doc(0, "b"), doc(5, "b")), 1, 1, cursors)), BY_X, 0, 0);
        cursors.get(0).failure = new CommandException(ErrorCode.CursorNotFound, "gone");
        assertThatThrownBy(() -> stream.next(0)).isInstanceOf(CommandException.class).hasMessageContaining("gone");
        assertThat(cursors.get(1).killed).isTrue();
    }

    @Test
    void routerCursorBatchesAreCutAtTheBatchSizeOrAtSixteenMebibytes() {
        List<BsonDocument> big = new ArrayList<>();
        String text = "x".repeat(1024 * 1024);
        for (int i = 0; i < 20; i++) {
            big.add(new BsonDocument("i", new BsonInt32(i)).append("t", new BsonString(text)));
        }
        DocumentStream stream = DocumentStream.of(big);
        assertThat(RouterCursor.batch(stream, 2)).hasSize(2);
        assertThat(RouterCursor.batch(stream, 0)).as("16 MiB reached on the 16th megabyte document").hasSize(16);
        assertThat(RouterCursor.batch(stream, 0)).hasSize(2);
        assertThat(stream.exhausted()).isTrue();
    }
}
