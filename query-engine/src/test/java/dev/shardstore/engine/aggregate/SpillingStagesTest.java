package dev.shardstore.engine.aggregate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import dev.shardstore.engine.spill.Interruption;
import dev.shardstore.engine.spill.MemoryLimits;
import dev.shardstore.engine.spill.SpillDirectory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code $sort}, {@code $group}, {@code $facet}'s held input and {@code $sample} over many times their budget give the
 * in-memory answer, or 292 without disk use.
 */
class SpillingStagesTest {
    private static final CollectionSource NO_LOOKUP = (collection, filter) -> List.of();

    @TempDir
    Path dir;

    private static List<BsonDocument> documents() {
        Random random = new Random(11);
        List<BsonDocument> docs = new ArrayList<>();
        for (int i = 0; i < 4000; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i)).append("g", new BsonInt32(random.nextInt(300)))
                    .append("s", new BsonString(Integer.toString(random.nextInt(1000)))).append("v", new BsonInt32(random.nextInt(100))));
        }
        return docs;
    }

    private static List<BsonDocument> run(String pipeline, MemoryLimits limits) {
        Pipeline parsed = Pipeline.parse(stages(pipeline), NO_LOOKUP, CommandVariables.withoutLet(), limits);
        try (Stream<BsonDocument> out = parsed.stream(documents().stream())) {
            return out.toList();
        }
    }

    private static BsonArray stages(String pipeline) {
        return ExtendedJson.parse("{p: " + pipeline + "}").getArray("p");
    }

    private SpillDirectory spill() {
        return SpillDirectory.open(dir);
    }

    private static MemoryLimits tiny(boolean allowDiskUse, SpillDirectory spill) {
        return new MemoryLimits(2048, 2048, allowDiskUse, spill, Interruption.NONE);
    }

    @Test
    void aSortAndAGroupOverTheirBudgetSpillAndAnswerAsInMemory() {
        SpillDirectory spill = spill();
        for (String pipeline : List.of(
                "[{$sort: {s: 1, v: -1}}]",
                "[{$group: {_id: '$g', n: {$sum: 1}, total: {$sum: '$v'}, first: {$first: '$_id'}, last: {$last: '$_id'},"
                        + " all: {$push: '$v'}, set: {$addToSet: '$s'}, lo: {$min: '$s'}}}]",
                "[{$group: {_id: {g: '$g', odd: {$mod: ['$v', 2]}}, n: {$sum: 1}}}, {$sort: {n: -1, _id: 1}}]",
                "[{$sortByCount: '$s'}]")) {
            assertThat(run(pipeline, tiny(true, spill))).as(pipeline).isEqualTo(run(pipeline, MemoryLimits.UNLIMITED));
            assertThat(spill.files()).as("files after " + pipeline).isEmpty();
        }
    }

    @Test
    void aFacetAndASampleHoldTheirInputWithinTheBudgetSpillingPastIt() {
        SpillDirectory spill = spill();
        String facet = "[{$facet: {bySort: [{$sort: {s: 1, _id: 1}}, {$limit: 5}], count: [{$count: 'n'}],"
                + " groups: [{$group: {_id: '$g'}}, {$count: 'n'}]}}]";
        assertThat(run(facet, tiny(true, spill))).isEqualTo(run(facet, MemoryLimits.UNLIMITED));
        assertThat(spill.files()).as("the facet's buffer file is gone").isEmpty();
        assertThatThrownBy(() -> run(facet, tiny(false, spill))).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed)).hasMessageContaining("$facet");

        List<BsonDocument> sample = run("[{$sample: {size: 1500}}]", tiny(true, spill));
        assertThat(sample).hasSize(1500).doesNotHaveDuplicates().isSubsetOf(documents());
        assertThat(spill.files()).isEmpty();
        assertThat(run("[{$sample: {size: 10000}}]", MemoryLimits.UNLIMITED)).as("all of them when fewer").hasSize(4000)
                .containsExactlyInAnyOrderElementsOf(documents());
        assertThat(run("[{$sample: {size: 0}}]", MemoryLimits.UNLIMITED)).isEmpty();
        assertThatThrownBy(() -> run("[{$sample: {size: 1500}}]", tiny(false, spill))).isInstanceOfSatisfying(CommandException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed));
    }

    @Test
    void withoutDiskUseTheyFailWith292NamingTheStage() {
        assertThatThrownBy(() -> run("[{$sort: {s: 1}}]", tiny(false, spill()))).isInstanceOf(CommandException.class)
                .hasMessageContaining("Sort exceeded memory limit of 2048 bytes").hasMessageContaining("$sort")
                .satisfies(e -> assertThat(((CommandException) e).code()).isEqualTo(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed));
        assertThatThrownBy(() -> run("[{$group: {_id: '$_id'}}]", tiny(false, spill()))).isInstanceOf(CommandException.class)
                .hasMessageContaining("Exceeded memory limit for $group, but didn't allow external sort")
                .satisfies(e -> assertThat(((CommandException) e).code()).isEqualTo(ErrorCode.QueryExceededMemoryLimitNoDiskUseAllowed));
    }

    @Test
    void aFailureAfterASpillDeletesItsFiles() {
        SpillDirectory spill = spill();
        // $sort spills, then $project's $divide fails on the first document whose v is 0
        assertThatThrownBy(() -> run("[{$sort: {s: 1}}, {$project: {x: {$divide: [1, '$v']}}}]", tiny(true, spill)))
                .isInstanceOf(CommandException.class);
        assertThat(spill.files()).isEmpty();
    }

    @Test
    void anErrorWhileReadingTheInputDeletesTheFilesSpilledSoFar() {
        // an OutOfMemoryError in the scan beneath a spilling stage (as a shard with a small heap met): the stage's runs go too
        SpillDirectory spill = spill();
        for (String pipeline : List.of("[{$sort: {s: 1}}]", "[{$group: {_id: '$_id', n: {$sum: 1}}}]")) {
            Pipeline parsed = Pipeline.parse(stages(pipeline), NO_LOOKUP, CommandVariables.withoutLet(), tiny(true, spill));
            Stream<BsonDocument> failing = documents().stream().peek(d -> {
                if (d.getInt32("_id").getValue() == 3000) {
                    assertThat(spill.files()).as("spilled before the error: %s", pipeline).isNotEmpty();
                    throw new OutOfMemoryError("the scan's page");
                }
            });
            assertThatThrownBy(() -> parsed.stream(failing).close()).as(pipeline).isInstanceOf(OutOfMemoryError.class);
            assertThat(spill.files()).as(pipeline).isEmpty();
        }
    }
}
