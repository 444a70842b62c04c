package dev.shardstore.engine.aggregate;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** $match, $project, $addFields/$set, $unset, $replaceRoot/$replaceWith, $sort, $skip, $limit, $unwind. */
class ShapingStagesTest {
    private static final String BOOKS = """
            [{_id: 1, title: 'abc123', isbn: '0001122223334', author: {last: 'zzz', first: 'aaa'}, copies: 5, tags: ['a', 'b']},
             {_id: 2, title: 'Baked Goods', author: {last: 'xyz', first: 'abc'}, copies: 2.5, tags: [], lastModified: null},
             {_id: 3, title: 'Cooking', copies: {$numberLong: '3'}, tags: 'solo', author: [{last: 'p', first: 'q'}, 7]}]""";

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            [{$match: {copies: {$gt: 2.5}}}, {$project: {title: 1}}] | [{_id: 1, title: 'abc123'}, {_id: 3, title: 'Cooking'}]
            [{$match: {_id: 1}}, {$project: {title: {$numberDecimal: '1'}}}] | [{_id: 1, title: 'abc123'}]
            [{$match: {_id: 1}}, {$project: {_id: 0, 'author.last': 1, title: 1}}] | [{title: 'abc123', author: {last: 'zzz'}}]
            [{$match: {_id: 3}}, {$project: {'author.first': 1}}] | [{_id: 3, author: [{first: 'q'}]}]
            [{$match: {_id: 1}}, {$project: {author: {first: 1}, n: {$add: ['$copies', 1]}}}] | [{_id: 1, author: {first: 'aaa'}, n: 6}]
            [{$match: {_id: 1}}, {$project: {'author.first': 0, tags: 0, isbn: false}}] | [{_id: 1, title: 'abc123', author: {last: 'zzz'}, copies: 5}]
            [{$match: {_id: 3}}, {$project: {'author.first': 0, _id: 0, title: 0, tags: 0}}] | [{copies: {$numberLong: '3'}, author: [{last: 'p'}, 7]}]
            [{$match: {_id: 1}}, {$project: {title: 1, missingField: '$nope', lit: {$literal: 1}, 'x.y': 'ok'}}] | [{_id: 1, title: 'abc123', lit: 1, x: {y: 'ok'}}]
            [{$match: {_id: 2}}, {$project: {_id: 0, title: 1, lastModified: {$ifNull: ['$lastModified', '$$REMOVE']}}}] | [{title: 'Baked Goods'}]
            [{$match: {_id: 1}}, {$addFields: {copies: 6, total: {$multiply: ['$copies', 2]}, 'author.mid': 'm'}}, {$project: {tags: 0, isbn: 0}}] | [{_id: 1, title: 'abc123', author: {last: 'zzz', first: 'aaa', mid: 'm'}, copies: 6, total: 10}]
            [{$match: {_id: 2}}, {$set: {title: '$$REMOVE', copies: {$toInt: '$copies'}}}] | [{_id: 2, author: {last: 'xyz', first: 'abc'}, copies: 2, tags: [], lastModified: null}]
            [{$match: {_id: 3}}, {$addFields: {'author.x': 1}}, {$project: {author: 1}}] | [{_id: 3, author: [{last: 'p', first: 'q', x: 1}, {x: 1}]}]
            [{$match: {_id: 1}}, {$unset: ['isbn', 'author.first', 'tags']}] | [{_id: 1, title: 'abc123', author: {last: 'zzz'}, copies: 5}]
            [{$match: {_id: 1}}, {$unset: 'author'}, {$project: {title: 1, _id: 0}}] | [{title: 'abc123'}]
            [{$match: {_id: 1}}, {$replaceRoot: {newRoot: '$author'}}] | [{last: 'zzz', first: 'aaa'}]
            [{$match: {_id: 1}}, {$replaceWith: {name: {$concat: ['$author.first', ' ', '$author.last']}}}] | [{name: 'aaa zzz'}]
            [{$sort: {copies: -1}}, {$project: {_id: 1}}] | [{_id: 1}, {_id: 3}, {_id: 2}]
            [{$sort: {'author.last': 1}}, {$project: {_id: 1}}] | [{_id: 3}, {_id: 2}, {_id: 1}]
            [{$skip: 1}, {$limit: 1}, {$project: {_id: 1}}] | [{_id: 2}]
            [{$skip: 5}] | []
            [{$limit: 2.0}, {$project: {_id: 1}}] | [{_id: 1}, {_id: 2}]
            [{$unwind: '$tags'}, {$project: {tags: 1}}] | [{_id: 1, tags: 'a'}, {_id: 1, tags: 'b'}, {_id: 3, tags: 'solo'}]
            [{$unwind: {path: '$tags', includeArrayIndex: 'i', preserveNullAndEmptyArrays: true}}, {$project: {tags: 1, i: 1}}] | [{_id: 1, tags: 'a', i: {$numberLong: '0'}}, {_id: 1, tags: 'b', i: {$numberLong: '1'}}, {_id: 2, tags: [], i: null}, {_id: 3, tags: 'solo', i: null}]
            [{$unwind: '$lastModified'}] | []
            [{$unwind: {path: '$nope', preserveNullAndEmptyArrays: true}}, {$project: {_id: 1}}] | [{_id: 1}, {_id: 2}, {_id: 3}]
            [{$match: {_id: 1}}, {$unwind: '$author.first'}, {$project: {author: 1}}] | [{_id: 1, author: {last: 'zzz', first: 'aaa'}}]
            """)
    void shapes(String pipeline, String expected) {
        Run.check(pipeline, BOOKS, expected);
    }

    @ParameterizedTest(name = "{0} fails: {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            [{$project: {title: 1, isbn: 0}}]          | 2     | Cannot do exclusion on field isbn in inclusion projection
            [{$project: {}}]                           | 2     | $project requires at least one output field
            [{$project: {title: {$numberDecimal: '1'}, copies: 0.0}}] | 2 | Cannot do exclusion on field copies in inclusion projection
            [{$project: {x: {$nope: 1}}}]              | 168   | Unrecognized expression '$nope'
            [{$unset: [1]}]                            | 2     | $unset specification must be a string or an array containing only string values
            [{$replaceRoot: {newRoot: '$title'}}]      | 2     | 'newRoot' expression must evaluate to an object
            [{$replaceWith: '$nope'}]                  | 2     | Type of resulting value: 'missing'
            [{$sort: {copies: 2}}]                     | 2     | $sort key ordering must be 1
            [{$sort: {}}]                              | 2     | $sort stage must have at least one sort key
            [{$limit: 0}]                              | 2     | invalid argument to $limit stage
            [{$skip: -1}]                              | 2     | invalid argument to $skip stage
            [{$unwind: 'tags'}]                        | 2     | path option to $unwind stage should be prefixed with a '$'
            [{$unwind: {path: '$tags', foo: 1}}]       | 2     | unrecognized option to $unwind stage: foo
            [{$unwind: {path: '$tags', includeArrayIndex: 1}}] | 2 | includeArrayIndex option to $unwind stage should be a non-empty string
            [{$unwind: {path: '$tags', preserveNullAndEmptyArrays: 1}}] | 2 | expected a boolean for the preserveNullAndEmptyArrays option
            [{$match: {copies: {$bad: 1}}}]            | 2     | unknown operator: $bad
            [{$frob: {}}]                              | 40324 | Unrecognized pipeline stage name: '$frob'
            [{$bucketAuto: {groupBy: '$a', buckets: 2}}] | 238 | the $bucketAuto stage is not implemented yet
            [{$setWindowFields: {output: {}}}]         | 238   | the $setWindowFields stage is not implemented yet
            [{$match: {}, $limit: 1}]                  | 2     | A pipeline stage specification object must contain exactly one field.
            [5]                                        | 14    | Each element of the 'pipeline' array must be an object
            """)
    void rejects(String pipeline, int code, String message) {
        Run.fails(pipeline, BOOKS, code, message);
    }
}
