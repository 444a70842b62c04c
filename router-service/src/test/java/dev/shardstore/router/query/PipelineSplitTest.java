package dev.shardstore.router.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.engine.aggregate.CollectionSource;
import dev.shardstore.engine.aggregate.Pipeline;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.query.Sort;
import dev.shardstore.router.cursor.DocumentStream;
import dev.shardstore.router.cursor.MergingStream;
import dev.shardstore.router.cursor.ShardCursor;
import java.util.ArrayList;
import dev.shardstore.engine.spill.Interruption;
import dev.shardstore.engine.spill.MemoryLimits;
import dev.shardstore.engine.spill.SpillDirectory;
import java.util.List;
import java.util.Random;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The shard part / merge part split of aggregation pipelines, and its equivalence with running the whole pipeline. */
class PipelineSplitTest {
    private static final CollectionSource NO_COLLECTIONS = (collection, filter) -> List.of();

    private static BsonArray pipeline(String json) {
        return ExtendedJson.parse("{p: " + json + "}").getArray("p");
    }

    private static PipelineSplit split(String json) {
        return PipelineSplit.of(pipeline(json));
    }

    @Test
    void streamingStagesRunOnTheShards() {
        PipelineSplit s = split("[{$match: {a: 1}}, {$project: {a: 1}}, {$unwind: '$a'}, {$set: {b: 2}}, {$unset: 'c'}, {$replaceWith: '$$ROOT'}]");
        assertThat(s.shardPipeline()).hasSize(6);
        assertThat(s.mergeSort()).isNull();
        assertThat(s.hasMergeStages()).isFalse();
    }

    @Test
    void aSortIsMergedAndAFollowingLimitIsPushedDownWithTheSkips() {
        PipelineSplit s = split("[{$match: {a: 1}}, {$sort: {b: -1}}, {$skip: 5}, {$limit: 10}, {$project: {b: 1}}]");
        assertThat(s.shardPipeline()).isEqualTo(pipeline("[{$match: {a: 1}}, {$sort: {b: -1}}, {$limit: {$numberLong: '15'}}]"));
        assertThat(s.mergeSort()).isEqualTo(ExtendedJson.parse("{b: -1}"));
        assertThat(s.mergePipeline()).isEqualTo(pipeline("[{$skip: 5}, {$limit: 10}, {$project: {b: 1}}]"));
    }

    @Test
    void limitIsCopiedAndSkipStaysOnTheRouter() {
        PipelineSplit limit = split("[{$limit: 3}, {$match: {a: 1}}]");
        assertThat(limit.shardPipeline()).isEqualTo(pipeline("[{$limit: 3}]"));
        assertThat(limit.mergePipeline()).isEqualTo(pipeline("[{$limit: 3}, {$match: {a: 1}}]"));
        PipelineSplit skip = split("[{$skip: 3}, {$match: {a: 1}}]");
        assertThat(skip.shardPipeline()).isEmpty();
        assertThat(skip.mergePipeline()).isEqualTo(pipeline("[{$skip: 3}, {$match: {a: 1}}]"));
    }

    @Test
    void aDecomposableGroupRunsInTwoPhases() {
        PipelineSplit s = split("[{$group: {_id: '$g', t: {$sum: '$n'}, c: {$count: {}}, lo: {$min: '$n'}, m: {$avg: '$n'}}}, {$sort: {t: 1}}]");
        assertThat(s.shardPipeline()).isEqualTo(pipeline("""
                [{$group: {_id: '$g', t: {$sum: '$n'}, c: {$sum: 1}, lo: {$min: '$n'}, m: {$sum: '$n'},
                  __avgCount_m: {$sum: {$cond: [{$and: [{$gt: ['$n', null]}, {$lt: ['$n', '']}]}, 1, 0]}}}}]"""));
        assertThat(s.mergePipeline()).isEqualTo(pipeline("""
                [{$group: {_id: '$_id', t: {$sum: '$t'}, c: {$sum: '$c'}, lo: {$min: '$lo'}, m: {$sum: '$m'},
                           __avgCount_m: {$sum: '$__avgCount_m'}}},
                 {$addFields: {m: {$cond: [{$eq: ['$__avgCount_m', 0]}, null, {$divide: ['$m', '$__avgCount_m']}]}}},
                 {$unset: ['__avgCount_m']},
                 {$sort: {t: 1}}]"""));
    }

    @Test
    void anOrderDependentGroupRunsOnTheRouter() {
        PipelineSplit s = split("[{$match: {a: 1}}, {$group: {_id: null, all: {$push: '$a'}, t: {$sum: 1}}}]");
        assertThat(s.shardPipeline()).isEqualTo(pipeline("[{$match: {a: 1}}]"));
        assertThat(s.mergePipeline()).isEqualTo(pipeline("[{$group: {_id: null, all: {$push: '$a'}, t: {$sum: 1}}}]"));
    }

    @Test
    void countAndSortByCountSplitAsTheirGroups() {
        assertThat(split("[{$count: 'n'}]").shardPipeline()).isEqualTo(pipeline("[{$group: {_id: null, n: {$sum: 1}}}]"));
        assertThat(split("[{$count: 'n'}]").mergePipeline())
                .isEqualTo(pipeline("[{$group: {_id: '$_id', n: {$sum: '$n'}}}, {$project: {_id: 0}}]"));
        assertThat(split("[{$sortByCount: '$s'}]").mergePipeline())
                .isEqualTo(pipeline("[{$group: {_id: '$_id', count: {$sum: '$count'}}}, {$sort: {count: -1}}]"));
    }

    @Test
    void otherBlockingStagesRunOnTheRouter() {
        for (String stage : List.of("{$sample: {size: 2}}", "{$facet: {a: [{$limit: 1}]}}", "{$bucket: {groupBy: '$n', boundaries: [0, 5]}}",
                "{$lookup: {from: 'o', localField: 'a', foreignField: 'b', as: 'j'}}")) {
            PipelineSplit s = split("[{$match: {a: 1}}, " + stage + ", {$limit: 1}]");
            assertThat(s.shardPipeline()).as(stage).isEqualTo(pipeline("[{$match: {a: 1}}]"));
            assertThat(s.mergePipeline()).as(stage).hasSize(2);
        }
    }

    /** A shard cursor with nothing more: the partitions' results are given whole as first batches. */
    private static final ShardCursor DONE = new ShardCursor() {
        @Override
        public String shardId() {
            return "s";
        }

        @Override
        public boolean exhausted() {
            return true;
        }

        @Override
        public List<BsonDocument> getMore(int batchSize) {
            throw new AssertionError("no getMore expected");
        }

        @Override
        public void kill() {
        }
    };

    private static List<BsonDocument> runWhole(BsonArray pipeline, List<BsonDocument> docs) {
        Pipeline p = Pipeline.parse(pipeline, NO_COLLECTIONS);
        return p.run(docs.stream().filter(p.scanFilter()::matches).toList());
    }

    private static List<BsonDocument> runSplit(BsonArray pipeline, List<List<BsonDocument>> partitions) {
        return runSplit(pipeline, partitions, MemoryLimits.UNLIMITED);
    }

    private static List<BsonDocument> runSplit(BsonArray pipeline, List<List<BsonDocument>> partitions, MemoryLimits limits) {
        PipelineSplit split = PipelineSplit.of(pipeline);
        List<MergingStream.Source> sources = new ArrayList<>();
        for (List<BsonDocument> partition : partitions) {
            sources.add(new MergingStream.Source(runWhole(split.shardPipeline(), partition), DONE));
        }
        DocumentStream merged = new MergingStream(sources, split.mergeSort() == null ? null : Sort.parse(split.mergeSort()).comparator(), 0, 0);
        List<BsonDocument> out = new ArrayList<>();
        for (BsonDocument d = merged.next(0); d != null; d = merged.next(0)) {
            out.add(d);
        }
        return split.hasMergeStages() ? split.runMerge(out.stream(), NO_COLLECTIONS, CommandVariables.withoutLet(), limits) : out;
    }

    private static BsonValue value(Random r) {
        return switch (r.nextInt(10)) {
            case 0 -> BsonNull.VALUE;
            case 1 -> new BsonString("s" + r.nextInt(3));
            case 2 -> new BsonInt64(r.nextInt(50));
            default -> new BsonInt32(r.nextInt(20) - 5);
        };
    }

    /** Documents over few group keys (1 and 1.0 among them), with missing, null, string and numeric values. */
    private static List<BsonDocument> documents(Random r, int n) {
        List<BsonDocument> docs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            BsonDocument d = new BsonDocument("_id", new BsonInt32(i));
            BsonValue[] groups = {new BsonString("a"), new BsonString("b"), new BsonInt32(1), new BsonDouble(1.0), BsonNull.VALUE};
            if (r.nextInt(10) > 0) {
                d.append("g", groups[r.nextInt(groups.length)]);
            }
            if (r.nextInt(10) > 0) {
                d.append("n", value(r));
            }
            d.append("d", new BsonDouble(r.nextInt(1000) / 1000.0));
            d.append("s", new BsonString("t" + r.nextInt(4)));
            BsonArray arr = new BsonArray();
            for (int k = r.nextInt(4); k > 0; k--) {
                arr.add(new BsonInt32(r.nextInt(5)));
            }
            d.append("arr", arr);
            docs.add(d);
        }
        return docs;
    }

    /**
     * Running the shard part on each of 3 partitions, merging, then running the merge part gives exactly what the
     * whole pipeline gives on the union (the partitions concatenated in shard order), for random data and splits.
     */
    @ParameterizedTest
    @ValueSource(strings = {
            "[{$match: {n: {$gt: 3}}}, {$project: {g: 1, n: 1}}]",
            "[{$sort: {n: 1, _id: 1}}, {$limit: 17}]",
            "[{$sort: {g: -1}}, {$skip: 5}, {$limit: 10}]",
            "[{$sort: {d: 1}}, {$skip: 40}]",
            "[{$skip: 7}, {$limit: 30}]",
            "[{$limit: 9}]",
            "[{$group: {_id: '$g', total: {$sum: '$n'}, c: {$count: {}}, lo: {$min: '$d'}, hi: {$max: '$n'}, avg: {$avg: '$n'}}}]",
            "[{$unwind: '$arr'}, {$group: {_id: '$arr', c: {$sum: 1}, a: {$avg: '$arr'}}}, {$sort: {c: -1, _id: 1}}]",
            "[{$group: {_id: null, all: {$push: '$_id'}, set: {$addToSet: '$s'}}}]",
            "[{$count: 'n'}]",
            "[{$match: {n: {$gt: 1000}}}, {$count: 'n'}]",
            "[{$match: {g: 'a'}}, {$sortByCount: '$s'}]",
            "[{$addFields: {k: {$multiply: ['$_id', 2]}}}, {$sort: {k: -1}}, {$project: {k: 1}}, {$limit: 5}]",
            "[{$group: {_id: {g: '$g', s: '$s'}, a: {$avg: '$n'}, m: {$max: '$s'}}}, {$match: {a: {$gt: 2}}}, {$sort: {'_id.s': 1}}]",
            "[{$match: {d: {$lt: 0.5}}}, {$group: {_id: '$g', first: {$first: '$_id'}, last: {$last: '$n'}}}]",
            "[{$facet: {a: [{$count: 'c'}], b: [{$sort: {_id: -1}}, {$limit: 2}]}}]",
            "[{$sort: {d: 1}}, {$group: {_id: '$g', n: {$sum: 1}}}]",
            "[{$replaceRoot: {newRoot: {x: '$_id', s: '$s'}}}, {$skip: 3}, {$limit: 4}]",
            "[{$bucket: {groupBy: '$d', boundaries: [0, 0.25, 0.5, 1.5], output: {c: {$sum: 1}}}}]",
            "[{$unwind: '$arr'}, {$sort: {arr: 1, _id: -1}}, {$skip: 3}, {$limit: 50}, {$group: {_id: '$s', c: {$sum: 1}}}]"})
    void splittingPreservesTheResult(String json, @TempDir Path spillDir) {
        BsonArray pipeline = pipeline(json);
        Random random = new Random(json.hashCode());
        for (int round = 0; round < 5; round++) {
            List<BsonDocument> docs = documents(random, 300);
            List<List<BsonDocument>> partitions = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            for (BsonDocument d : docs) {
                partitions.get(random.nextInt(3)).add(d);
            }
            List<BsonDocument> union = new ArrayList<>();
            partitions.forEach(union::addAll);
            List<BsonDocument> expected = runWhole(pipeline, union);
            assertThat(runSplit(pipeline, partitions)).as(json + " round " + round).isEqualTo(expected);
            // the router's merge stages over a budget a few documents wide spill and still answer the same
            SpillDirectory spill = SpillDirectory.open(spillDir);
            assertThat(runSplit(pipeline, partitions, new MemoryLimits(512, 512, true, spill, Interruption.NONE))).as(json + " spilling, round " + round)
                    .isEqualTo(expected);
            assertThat(spill.files()).isEmpty();
        }
    }
}
