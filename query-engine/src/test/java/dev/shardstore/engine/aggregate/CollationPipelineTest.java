package dev.shardstore.engine.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.engine.aggregate.expression.CommandVariables;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An aggregate's {@code collation} applies to every string comparison of its pipeline (MongoDB manual, "Collation"):
 * {@code $match} ({@code $expr} included), {@code $sort}, {@code $group} keys (strings equal under it are one group, the
 * first seen its {@code _id}), {@code $min}/{@code $max}/{@code $addToSet}, the sugar stages, {@code $facet},
 * {@code $lookup}'s equality match and the comparison expressions. Each case runs under strength 1, 2, 3,
 * numericOrdering or the simple collation against the same documents.
 */
class CollationPipelineTest {
    private static final String WORDS = "[{_id: 1, s: 'a', n: '10'}, {_id: 2, s: 'A', n: '9'}, {_id: 3, s: 'b', n: '2'}, {_id: 4, s: 'á', n: '1'}]";
    private static final String OTHER = "[{_id: 10, k: 'A'}, {_id: 11, k: 'á'}]";
    private static final String S1 = "{locale: 'en', strength: 1}";
    private static final String S2 = "{locale: 'en', strength: 2}";
    private static final String S3 = "{locale: 'en', strength: 3}";
    private static final String NUMERIC = "{locale: 'en', numericOrdering: true}";

    @ParameterizedTest(name = "{0} under {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            [{$group: {_id: '$s', c: {$sum: 1}}}]          | {locale: 'simple'} | [{_id: 'A', c: 1}, {_id: 'a', c: 1}, {_id: 'b', c: 1}, {_id: 'á', c: 1}]
            [{$group: {_id: '$s', c: {$sum: 1}}}]          | `S1` | [{_id: 'a', c: 3}, {_id: 'b', c: 1}]
            [{$group: {_id: '$s', c: {$sum: 1}}}]          | `S2` | [{_id: 'a', c: 2}, {_id: 'á', c: 1}, {_id: 'b', c: 1}]
            [{$group: {_id: '$s', c: {$sum: 1}}}]          | `S3` | [{_id: 'a', c: 1}, {_id: 'A', c: 1}, {_id: 'á', c: 1}, {_id: 'b', c: 1}]
            [{$sort: {_id: -1}}, {$group: {_id: {k: '$s'}, ids: {$push: '$_id'}}}] | `S2` | [{_id: {k: 'A'}, ids: [2, 1]}, {_id: {k: 'á'}, ids: [4]}, {_id: {k: 'b'}, ids: [3]}]
            [{$sort: {n: 1}}, {$project: {_id: 1}}]         | `NUMERIC` | [{_id: 4}, {_id: 3}, {_id: 2}, {_id: 1}]
            [{$sort: {n: 1}}, {$project: {_id: 1}}]         | {locale: 'en'} | [{_id: 4}, {_id: 1}, {_id: 3}, {_id: 2}]
            [{$sort: {s: 1, _id: 1}}, {$project: {_id: 1}}] | `S1` | [{_id: 1}, {_id: 2}, {_id: 4}, {_id: 3}]
            [{$sort: {s: 1, _id: 1}}, {$project: {_id: 1}}] | {locale: 'simple'} | [{_id: 2}, {_id: 1}, {_id: 3}, {_id: 4}]
            [{$match: {s: 'A'}}, {$project: {_id: 1}}]      | `S2` | [{_id: 1}, {_id: 2}]
            [{$match: {s: 'A'}}, {$project: {_id: 1}}]      | `S3` | [{_id: 2}]
            [{$project: {_id: 1}}, {$match: {$expr: {$eq: ['$$ROOT', {_id: 1}]}}}] | `S1` | [{_id: 1}]
            [{$match: {$expr: {$eq: ['$s', 'A']}}}, {$project: {_id: 1}}] | `S1` | [{_id: 1}, {_id: 2}, {_id: 4}]
            [{$match: {$expr: {$eq: ['$s', 'A']}}}, {$project: {_id: 1}}] | `S2` | [{_id: 1}, {_id: 2}]
            [{$match: {$expr: {$eq: ['$s', 'A']}}}, {$project: {_id: 1}}] | {locale: 'simple'} | [{_id: 2}]
            [{$project: {c: {$cmp: ['$s', 'A']}, ne: {$ne: ['$s', 'A']}, lt: {$lt: ['$n', '9']}, in: {$in: ['$s', ['A', 'B']]}}}] | `S2` | [{_id: 1, c: 0, ne: false, lt: true, in: true}, {_id: 2, c: 0, ne: false, lt: false, in: true}, {_id: 3, c: 1, ne: true, lt: true, in: true}, {_id: 4, c: 1, ne: true, lt: true, in: false}]
            [{$project: {lt: {$lt: ['$n', '9']}, gte: {$gte: ['$n', '10']}, lte: {$lte: ['$n', '2']}, gt: {$gt: ['$n', '2']}}}] | `NUMERIC` | [{_id: 1, lt: false, gte: true, lte: false, gt: true}, {_id: 2, lt: false, gte: false, lte: false, gt: true}, {_id: 3, lt: true, gte: false, lte: true, gt: false}, {_id: 4, lt: true, gte: false, lte: true, gt: false}]
            [{$group: {_id: null, lo: {$min: '$n'}, hi: {$max: '$n'}}}] | `NUMERIC` | [{_id: null, lo: '1', hi: '10'}]
            [{$group: {_id: null, lo: {$min: '$n'}, hi: {$max: '$n'}}}] | {locale: 'simple'} | [{_id: null, lo: '1', hi: '9'}]
            [{$group: {_id: null, all: {$addToSet: '$s'}}}] | `S1` | [{_id: null, all: ['a', 'b']}]
            [{$group: {_id: null, all: {$addToSet: '$s'}}}] | `S2` | [{_id: null, all: ['a', 'á', 'b']}]
            [{$sortByCount: '$s'}]                          | `S1` | [{_id: 'a', count: 3}, {_id: 'b', count: 1}]
            [{$match: {s: 'a'}}, {$count: 'n'}]             | `S1` | [{n: 3}]
            [{$bucket: {groupBy: '$s', boundaries: ['a', 'b', 'c'], default: 'x'}}] | `S1` | [{_id: 'a', count: 3}, {_id: 'b', count: 1}]
            [{$bucket: {groupBy: '$s', boundaries: ['a', 'b', 'c'], default: 'x'}}] | {locale: 'simple'} | [{_id: 'a', count: 1}, {_id: 'b', count: 1}, {_id: 'x', count: 2}]
            [{$facet: {f: [{$match: {s: 'A'}}, {$count: 'n'}], g: [{$group: {_id: '$s'}}, {$count: 'n'}]}}] | `S2` | [{f: [{n: 2}], g: [{n: 3}]}]
            [{$match: {_id: {$in: [1, 3]}}}, {$lookup: {from: 'other', localField: 's', foreignField: 'k', as: 'j'}}, {$project: {'j._id': 1}}] | `S1` | [{_id: 1, j: [{_id: 10}, {_id: 11}]}, {_id: 3, j: []}]
            [{$match: {_id: {$in: [1, 3]}}}, {$lookup: {from: 'other', localField: 's', foreignField: 'k', as: 'j'}}, {$project: {'j._id': 1}}] | `S2` | [{_id: 1, j: [{_id: 10}]}, {_id: 3, j: []}]
            [{$match: {_id: {$in: [1, 3]}}}, {$lookup: {from: 'other', localField: 's', foreignField: 'k', as: 'j'}}, {$project: {'j._id': 1}}] | {locale: 'simple'} | [{_id: 1, j: []}, {_id: 3, j: []}]
            """)
    void comparesStringsUnderTheCollation(String pipeline, String collation, String expected) {
        assertThat(Run.json(run(pipeline, constant(collation)))).as(pipeline).containsExactlyElementsOf(Run.json(Run.docs(expected)));
    }

    @Test
    void letValuesAreEvaluatedUnderTheCollation() {
        CommandVariables variables = CommandVariables.ofCommand(ExtendedJson.parse(
                "{aggregate: 'c', let: {same: {$eq: ['a', 'A']}}, collation: " + S2 + "}"));
        Pipeline pipeline = Pipeline.parse(ExtendedJson.parse("{p: [{$project: {same: '$$same'}}]}").getArray("p"),
                (c, f) -> List.of(), variables);
        assertThat(pipeline.run(Run.docs("[{_id: 1}]"))).containsExactly(BsonDocument.parse("{_id: 1, same: true}"));
        assertThat(variables.collation().spec().getInt32("strength").getValue()).isEqualTo(2);
    }

    /** The table's placeholders for the collations used most. */
    private static String constant(String collation) {
        return switch (collation) {
            case "S1" -> S1;
            case "S2" -> S2;
            case "S3" -> S3;
            case "NUMERIC" -> NUMERIC;
            default -> collation;
        };
    }

    private static List<BsonDocument> run(String pipeline, String collation) {
        CommandVariables variables = CommandVariables.ofCommand(ExtendedJson.parse("{aggregate: 'c', collation: " + collation + "}"));
        return Run.run(pipeline, WORDS, Map.of("other", OTHER), variables);
    }
}
