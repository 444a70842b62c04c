package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.support.command.CommandOptions;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Walks every option MongoDB documents for the commands the shards serve (this test's own table, written from the
 * MongoDB manual's command pages, not from {@link CommandOptions}): each is either honoured (the command succeeds) or
 * refused with an error whose message names it — never silently ignored — and the production table lists exactly
 * these options. The effects of the implemented ones are shown by the commands' own tests ({@code let}, {@code sort},
 * {@code hint}, the version checks, ...); here a simple collation must give the same answer as none. The internal
 * {@code databaseVersion}/{@code shardVersion} rows send malformed values, refused naming the field; aggregate's
 * {@code explain: true} is answered by the router (as the explain command), so a shard refuses it naming it.
 */
class CommandOptionsTest extends ShardIntegrationTest {
    private static final String DB = "opts";
    private static final AtomicInteger CREATED = new AtomicInteger();

    /** The command each row's option is added to; {@code %s} is where the option goes. */
    private static final Map<String, String> SHAPES = Map.ofEntries(
            Map.entry("*", "{find: 'c', %s}"),
            Map.entry("find", "{find: 'c', %s}"),
            Map.entry("aggregate", "{aggregate: 'c', pipeline: [], cursor: {}, %s}"),
            Map.entry("count", "{count: 'c', %s}"),
            Map.entry("distinct", "{distinct: 'c', key: 'a', %s}"),
            Map.entry("insert", "{insert: 'c', documents: [{}], %s}"),
            Map.entry("update", "{update: 'c', updates: [{q: {_id: 'none'}, u: {$set: {a: 1}}}], %s}"),
            Map.entry("delete", "{delete: 'c', deletes: [{q: {_id: 'none'}, limit: 1}], %s}"),
            Map.entry("findAndModify", "{findAndModify: 'c', query: {_id: 'none'}, update: {$set: {a: 1}}, %s}"),
            Map.entry("createIndexes", "{createIndexes: 'c', indexes: [{key: {b: 1}, name: 'b_1'}], %s}"),
            Map.entry("create", "{create: 'new%d', %s}"),
            Map.entry("collMod", "{collMod: 'c', %s}"),
            Map.entry("explain", "{explain: {find: 'c'}, %s}"),
            Map.entry("update.updates", "{update: 'c', updates: [{q: {_id: 'none'}, u: {$set: {a: 1}}, %s}]}"),
            Map.entry("delete.deletes", "{delete: 'c', deletes: [{q: {_id: 'none'}, limit: 1, %s}]}"),
            Map.entry("createIndexes.indexes", "{createIndexes: 'ix%d', indexes: [{key: {d: 1}, name: 'd_1', %s}]}"));

    /**
     * command | option: value | expected: "ok" or the error code (the message must then name the option, or the word
     * after the code). At least one row per documented option; refused values of conditional options follow the
     * accepted ones; "bogus" rows are fields MongoDB does not document.
     */
    private static final String TABLE = """
            * | $db: 'opts' | ok
            * | $db: 'other' | 72
            * | comment: 'why' | ok
            * | maxTimeMS: 0 | ok
            * | maxTimeMS: 100 | ok
            * | readConcern: {level: 'majority'} | ok
            * | readConcern: {level: 'snapshot'} | ok
            * | readConcern: {level: 'snapshot', atClusterTime: {$timestamp: {t: 1, i: 1}}} | 239
            * | readConcern: {afterClusterTime: {$timestamp: {t: 1, i: 1}}} | ok
            * | readConcern: {level: 'linearizable'} | 238
            * | readConcern: {level: 'bogus'} | 2
            * | readConcern: {level: 'available', afterClusterTime: {$timestamp: {t: 1, i: 1}}} | 72
            * | readConcern: {atClusterTime: {$timestamp: {t: 1, i: 1}}} | 72
            * | readConcern: {afterClusterTime: 5} | 14
            * | writeConcern: {w: 'majority', j: false, wtimeout: 100} | ok
            * | writeConcern: {w: 2} | 100
            * | writeConcern: {w: 'dc1'} | 79
            * | lsid: {id: {$binary: {base64: 'AAAAAAAAAAAAAAAAAAAAAA==', subType: '04'}}} | ok
            * | lsid: {id: 1} | 14
            * | txnNumber: {$numberLong: '1'} | 72
            * | autocommit: false | 72
            * | startTransaction: true | 72
            * | stmtId: 0 | 72
            * | stmtIds: [0] | 72
            * | apiVersion: '1' | ok
            * | apiVersion: '2' | 72
            * | apiStrict: false | ok
            * | apiStrict: true | 238
            * | apiDeprecationErrors: true | ok
            * | $readPreference: {mode: 'primaryPreferred'} | ok
            * | $readPreference: {mode: 'secondary'} | 238
            * | $clusterTime: {clusterTime: {$timestamp: {t: 1, i: 1}}} | ok
            * | databaseVersion: 5 | 14
            * | shardVersion: 5 | 14
            find | collation: {locale: 'simple'} | ok
            find | collation: {locale: 'fr', strength: 1} | ok
            find | collation: {locale: 'xx_YY'} | 2
            find | filter: {a: 1} | ok
            find | sort: {a: 1} | ok
            find | projection: {a: 1} | ok
            find | hint: {_id: 1} | ok
            find | skip: 1 | ok
            find | limit: 1 | ok
            find | batchSize: 1 | ok
            find | singleBatch: true | ok
            find | let: {x: 1} | ok
            find | allowDiskUse: true | ok
            find | max: {a: 5} | 238
            find | min: {a: 5} | 238
            find | returnKey: false | ok
            find | returnKey: true | 238
            find | showRecordId: true | 238
            find | tailable: true | 238
            find | awaitData: true | 238
            find | noCursorTimeout: false | ok
            find | noCursorTimeout: true | 238
            find | allowPartialResults: true | 238
            find | oplogReplay: true | ok
            find | readOnce: true | ok
            find | bogus: 1 | 40415
            aggregate | collation: {locale: 'simple'} | ok
            aggregate | collation: {locale: 'en'} | ok
            aggregate | pipeline: [] | ok
            aggregate | cursor: {batchSize: 1} | ok
            aggregate | let: {x: 1} | ok
            aggregate | explain: true | 238
            aggregate | hint: {_id: 1} | ok
            aggregate | allowDiskUse: true | ok
            aggregate | bypassDocumentValidation: true | ok
            aggregate | bogus: 1 | 40415
            count | collation: {locale: 'simple'} | ok
            count | collation: {locale: 'de'} | ok
            count | query: {a: 1} | ok
            count | limit: 1 | ok
            count | skip: 1 | ok
            count | hint: {_id: 1} | ok
            count | bogus: 1 | 40415
            distinct | collation: {locale: 'simple'} | ok
            distinct | collation: {locale: 'de'} | ok
            distinct | key: 'b' | ok
            distinct | query: {a: 1} | ok
            distinct | hint: {_id: 1} | ok
            distinct | bogus: 1 | 40415
            insert | documents: [{}] | ok
            insert | ordered: false | ok
            insert | bypassDocumentValidation: true | ok
            insert | bogus: 1 | 40415
            update | updates: [{q: {}, u: {$set: {z: 1}}}] | ok
            update | ordered: false | ok
            update | let: {x: 1} | ok
            update | bypassDocumentValidation: true | ok
            update | bogus: 1 | 40415
            delete | deletes: [{q: {_id: 'none'}, limit: 0}] | ok
            delete | ordered: false | ok
            delete | let: {x: 1} | ok
            delete | bogus: 1 | 40415
            findAndModify | collation: {locale: 'simple'} | ok
            findAndModify | collation: {locale: 'fr'} | ok
            findAndModify | collation: {locale: 'xx_YY'} | 2
            findAndModify | query: {a: 1} | ok
            findAndModify | sort: {a: 1} | ok
            findAndModify | remove: false | ok
            findAndModify | update: [{$set: {a: 2}}] | ok
            findAndModify | new: true | ok
            findAndModify | fields: {a: 1} | ok
            findAndModify | upsert: false | ok
            findAndModify | arrayFilters: [] | ok
            findAndModify | hint: {_id: 1} | ok
            findAndModify | let: {x: 1} | ok
            findAndModify | bypassDocumentValidation: true | ok
            findAndModify | bogus: 1 | 40415
            createIndexes | indexes: [{key: {b: 1}, name: 'b_1'}] | ok
            createIndexes | commitQuorum: 'majority' | ok
            createIndexes | commitQuorum: 3 | 72
            createIndexes | bogus: 1 | 40415
            create | collation: {locale: 'simple'} | ok
            create | collation: {locale: 'fr'} | ok
            create | collation: {locale: 'fr', strength: 9} | 2
            create | storageEngine: {wiredTiger: {}} | ok
            create | indexOptionDefaults: {storageEngine: {}} | ok
            create | autoIndexId: true | ok
            create | capped: true | 238
            create | size: 1000 | 238
            create | max: 10 | 238
            create | viewOn: 'c' | ok
            create | pipeline: [] | 72
            create | timeseries: {timeField: 't'} | ok
            create | expireAfterSeconds: 10 | 72
            create | clusteredIndex: {key: {_id: 1}, unique: true} | 238
            create | validator: {a: {$exists: true}} | 238
            create | validationLevel: 'strict' | 238
            create | validationAction: 'error' | 238
            create | changeStreamPreAndPostImages: {enabled: true} | 238
            create | encryptedFields: {} | 238
            create | bogus: 1 | 40415
            collMod | timeseries: {granularity: 'hours'} | 72
            collMod | expireAfterSeconds: 10 | 72
            collMod | index: {name: 'a_1', hidden: true} | 238
            collMod | validator: {a: {$exists: true}} | 238
            collMod | validationLevel: 'strict' | 238
            collMod | validationAction: 'error' | 238
            collMod | viewOn: 'c' | 238
            collMod | pipeline: [] | 238
            collMod | cappedSize: 1000 | 238
            collMod | cappedMax: 10 | 238
            collMod | changeStreamPreAndPostImages: {enabled: true} | 238
            collMod | timeseriesBucketsMayHaveMixedSchemaData: true | 238
            collMod | dryRun: true | 238
            collMod | bogus: 1 | 40415
            explain | explain: {count: 'c'} | ok
            explain | verbosity: 'queryPlanner' | ok
            explain | explain: {find: 'c', collation: {locale: 'fr'}} | ok
            explain | explain: {aggregate: 'c', pipeline: [], cursor: {}, collation: {locale: 'fr'}} | ok
            explain | bogus: 1 | 40415
            update.updates | collation: {locale: 'simple'} | ok
            update.updates | collation: {locale: 'fr'} | ok
            update.updates | collation: {locale: 'xx_YY'} | 2
            update.updates | q: {a: 1} | ok
            update.updates | u: [{$set: {a: 2}}] | ok
            update.updates | c: {k: 1}, u: [{$set: {a: '$$k'}}] | ok
            update.updates | upsert: false | ok
            update.updates | multi: true | ok
            update.updates | arrayFilters: [] | ok
            update.updates | hint: {_id: 1} | ok
            update.updates | sort: {a: 1} | ok
            update.updates | upsertSupplied: false | ok
            update.updates | bogus: 1 | 40415
            delete.deletes | collation: {locale: 'simple'} | ok
            delete.deletes | collation: {locale: 'fr'} | ok
            delete.deletes | collation: {strength: 2} | 40414
            delete.deletes | q: {a: 1} | ok
            delete.deletes | limit: 0 | ok
            delete.deletes | hint: {_id: 1} | ok
            delete.deletes | bogus: 1 | 40415
            createIndexes.indexes | key: {e: 1} | ok
            createIndexes.indexes | name: 'named' | ok
            createIndexes.indexes | unique: true | ok
            createIndexes.indexes | sparse: true | ok
            createIndexes.indexes | partialFilterExpression: {d: {$gt: 1}} | ok
            createIndexes.indexes | v: 2 | ok
            createIndexes.indexes | background: true | ok
            createIndexes.indexes | collation: {locale: 'simple'} | ok
            createIndexes.indexes | collation: {locale: 'fr'} | ok
            createIndexes.indexes | collation: {locale: 'xx_YY'} | 2
            createIndexes.indexes | expireAfterSeconds: 10 | 238
            createIndexes.indexes | hidden: true | 238
            createIndexes.indexes | storageEngine: {} | 238
            createIndexes.indexes | weights: {a: 1} | 238
            createIndexes.indexes | default_language: 'en' | 238
            createIndexes.indexes | language_override: 'l' | 238
            createIndexes.indexes | textIndexVersion: 3 | 238
            createIndexes.indexes | '2dsphereIndexVersion': 3 | 238
            createIndexes.indexes | bits: 26 | 238
            createIndexes.indexes | min: -180 | 238
            createIndexes.indexes | max: 180 | 238
            createIndexes.indexes | wildcardProjection: {a: 1} | 238
            createIndexes.indexes | prepareUnique: true | 238
            createIndexes.indexes | bogus: 1 | 197
            """;

    /**
     * One row: the command the fragment goes into, the fragment (its first field is the option), the expected code (0:
     * ok) and what the error message must name (the option, unless the row says otherwise).
     */
    record Row(String command, String fragment, int code, String named) {
        String option() {
            return fragment.substring(0, fragment.indexOf(':')).replace("'", "").trim();
        }

        @Override
        public String toString() {
            return command + " | " + fragment + " -> " + (code == 0 ? "ok" : code);
        }
    }

    static Stream<Row> rows() {
        return TABLE.lines().map(line -> line.split("\\|")).map(cells -> {
            String[] expected = cells[2].trim().split(" ");
            Row row = new Row(cells[0].trim(), cells[1].trim(), expected[0].equals("ok") ? 0 : Integer.parseInt(expected[0]), "");
            return new Row(row.command(), row.fragment(), row.code(), expected.length > 1 ? expected[1] : row.option());
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void everyDocumentedOptionIsHonouredOrRefusedNamingIt(Row row) {
        insertInto(DB, "c", "{_id: 1, a: 1}");
        String shape = SHAPES.get(row.command());
        String command = shape.contains("%d") // a collection of its own: create, or index options that would conflict
                ? String.format(shape, CREATED.incrementAndGet(), row.fragment()) : String.format(shape, row.fragment());
        BsonDocument reply = run(DB, command);

        if (row.code() == 0) {
            assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
            assertThat(reply.containsKey("writeErrors")).as(reply.toJson()).isFalse();
        } else {
            assertThat(reply.getNumber("code", new BsonInt32(0)).intValue()).as(reply.toJson()).isEqualTo(row.code());
            assertThat(reply.getString("errmsg").getValue()).as(reply.toJson()).contains(row.named());
        }
    }

    /** The table above and the production table list the same options, so a new option cannot skip this walk. */
    @Test
    void theWalkCoversTheProductionTable() {
        Set<String> walked = new LinkedHashSet<>();
        rows().filter(r -> !r.option().equals("bogus")).forEach(r -> walked.add(r.command() + " " + r.option()));
        Set<String> documented = new LinkedHashSet<>();
        CommandOptions.table().forEach((command, options) -> options.keySet().forEach(o -> documented.add(command + " " + o)));
        documented.removeIf(option -> option.startsWith("bulkWrite ")); // a router command: the router's BulkWriteTest walks it
        assertThat(walked).containsExactlyInAnyOrderElementsOf(documented);
    }

    @Test
    void aSimpleCollationAnswersAsNoneAndACaselessOneMatchesBoth() {
        insertInto(DB, "coll", "{_id: 1, s: 'a'}", "{_id: 2, s: 'A'}");
        BsonDocument simple = run(DB, "{find: 'coll', filter: {s: 'a'}, collation: {locale: 'simple'}}");
        assertThat(simple.getDocument("cursor").getArray("firstBatch")).containsExactly(ExtendedJson.parse("{_id: 1, s: 'a'}"));
        BsonDocument insensitive = run(DB, "{find: 'coll', filter: {s: 'a'}, sort: {_id: 1}, collation: {locale: 'en', strength: 2}}");
        assertThat(insensitive.getDocument("cursor").getArray("firstBatch"))
                .containsExactly(ExtendedJson.parse("{_id: 1, s: 'a'}"), ExtendedJson.parse("{_id: 2, s: 'A'}"));
    }
}
