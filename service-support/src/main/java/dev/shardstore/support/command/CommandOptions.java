package dev.shardstore.support.command;

import dev.shardstore.contracts.bson.Collation;
import dev.shardstore.contracts.clock.ReadConcern;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.session.LogicalSessionId;
import dev.shardstore.contracts.session.OperationSessionInfo;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * The one table of the options MongoDB documents for the commands this cluster serves — find, aggregate, count,
 * distinct, insert, update, delete, findAndModify, createIndexes, create, collMod, explain, with the fields of update and
 * delete statements and of index specifications — and what the cluster does with each: an option MongoDB gives
 * meaning to is implemented or refused with an error naming it, never silently ignored. {@link CommandRegistry}
 * checks every command it runs against it, on the router and on the shards alike; docs/command-options.md is the
 * table for readers.
 *
 * <p>Treatments ({@link Treatment}): IMPLEMENTED (honoured as MongoDB documents it); ACCEPTED (MongoDB's meaning
 * has no effect here, e.g. {@code comment}, or is what this cluster always does, e.g. {@code writeConcern: {w:
 * "majority"}} on shards that are single PostgreSQL primaries); CONDITIONAL (accepted for the values whose meaning
 * is implemented or void here, refused for the others, e.g. {@code collation} only when it is the simple
 * collation); REFUSED (NotImplemented (238), naming the option).
 *
 * <p>Errors ({@link CommandException}, each naming {@code <command>.<field>}): a field MongoDB does not document for
 * the command is Location40415 "BSON field 'find.foo' is an unknown field." (MongoDB's IDL error; in an index
 * specification InvalidIndexSpecificationOption (197), MongoDB's error there); a refused option
 * or value is NotImplemented (238) or, for a value MongoDB itself could not satisfy on this topology, InvalidOptions
 * (72). Options are checked before anything runs, so a refused one writes nothing.
 */
public final class CommandOptions {
    /** What the cluster does with one option. */
    public enum Treatment { IMPLEMENTED, ACCEPTED, CONDITIONAL, REFUSED }

    /**
     * Checks one option's value.
     *
     * @param path the option as errors name it, e.g. {@code find.collation} or {@code update.updates.0.hint}
     */
    @FunctionalInterface
    interface ValueCheck {
        void check(String path, BsonValue value);
    }

    /**
     * One documented option.
     *
     * @param name      the field name
     * @param treatment what the cluster does with it
     * @param note      why, for the documentation table
     * @param check     refuses the values that are not accepted (a no-op for IMPLEMENTED and ACCEPTED)
     */
    public record Option(String name, Treatment treatment, String note, ValueCheck check) {
        /** Checks {@code value} of this option at {@code path}. */
        void check(String path, BsonValue value) {
            check.check(path, value);
        }
    }

    private static final ValueCheck ANY = (path, value) -> { };
    /** The session fields are checked together, by {@link OperationSessionInfo#of}, once every option passed. */
    private static final ValueCheck SESSION_FIELDS = ANY;

    /** The generic arguments every command of the table takes (MongoDB's {@code generic_argument.idl}). */
    private static final Map<String, Option> GENERIC = options(
            implemented("$db", "the database; must name the database the command is sent to"),
            accepted("comment", "no profiler or log consumes it"),
            new Option("maxTimeMS", Treatment.IMPLEMENTED, "a whole number of ms, 0 = none: past it the command fails with MaxTimeMSExpired (50), checked by"
                    + " the router between routing attempts and by each shard while it scans documents (the router forwards it);"
                    + " a cursor's getMores spend what is left of it; refused on getMore itself (no awaitData cursors)",
                    MaxTimeMS::millis),
            conditional("readConcern", "local, available and majority read the shard primary's committed data, which is"
                    + " what each is on single-node shards; afterClusterTime waits for every write up to that time;"
                    + " snapshot reads the state at atClusterTime (one the router chooses when not given) in a transaction and"
                    + " on find, aggregate and distinct, for the last minSnapshotHistoryWindowInSeconds (300 s);"
                    + " linearizable is not implemented",
                    (path, value) -> ReadConcern.of(new BsonDocument(ReadConcern.FIELD, value))),
            conditional("writeConcern", "w: 0, 1 or majority (one copy per shard); j/fsync true when the shard's PostgreSQL"
                    + " flushes commits (refused on the fast setting); wtimeout never reached (nothing waits after the commit);"
                    + " w above 1 (100) or a tag (79) is refused, see WriteConcern",
                    WriteConcern::parse),
            conditional("lsid", "the session: placed in the node's logical session cache (its cursors die with it); with txnNumber a retryable write",
                    (path, value) -> LogicalSessionId.parse(value, path)),
            conditional("txnNumber", "retryable writes: insert, update (multi: false), delete (limit: 1) and findAndModify"
                    + " with lsid; with autocommit: false a transaction's statement", CommandOptions::txnNumber),
            conditional("autocommit", "false only, with txnNumber: a statement of a multi-document transaction, run by the"
                    + " shards in one PostgreSQL transaction; the router refuses transactions until it routes them",
                    SESSION_FIELDS),
            conditional("startTransaction", "true only, with autocommit: false: the transaction's first statement",
                    SESSION_FIELDS),
            conditional("stmtId", "retryable writes only: the id of the first statement (routers assign ids)", (path, value) -> retryableWriteOnly(path)),
            conditional("stmtIds", "retryable writes only: one id per statement (routers assign ids)", (path, value) -> retryableWriteOnly(path)),
            conditional("apiVersion", "version \"1\" is the API this cluster serves", (path, value) -> {
                if (!(value.isString() && value.asString().getValue().equals("1"))) {
                    throw invalid(path, "only API version \"1\" exists, not " + json(value));
                }
            }),
            conditional("apiStrict", "false is accepted; strict API checking is not implemented", onlyFalse("strict API checking is not implemented")),
            accepted("apiDeprecationErrors", "no deprecated behaviour exists to report"),
            conditional("$readPreference", "every read is served by the shard primary: primary, primaryPreferred,"
                    + " secondaryPreferred and nearest are satisfied; secondary is not (shards have no secondaries)",
                    CommandOptions::readPreference),
            implemented("$clusterTime", "gossiped cluster time: moves the logical clock; ahead of the node's time it must be validly signed"),
            implemented("databaseVersion", "internal: the router's database version, checked by the shard"),
            implemented("shardVersion", "internal: the router's shard version, checked by the shard"));

    /** The reads that compare strings under any collation (filter, sort, distinct values; MongoDB manual, "Collation"). */
    private static final Map<String, Option> ICU_COLLATION = icuCollation("ICU collation (locale, strength,"
            + " caseLevel, caseFirst, numericOrdering, alternate, maxVariable, normalization, backwards) on filter string"
            + " comparisons (not $regex), sort and distinct; without one, the collection's default collation; string"
            + " predicates use only indexes with the same collation; a query comparing strings under a non-simple collation"
            + " is sent to every shard of a sharded collection; refused on time-series collections");
    /** An aggregate's collation applies to every string comparison of its pipeline (MongoDB manual, "Collation"). */
    private static final Map<String, Option> AGGREGATE_COLLATION = icuCollation("ICU collation on every string comparison of"
            + " the pipeline, on the shards and in the router's merge: $match ($expr included, not $regex), $sort, $group keys"
            + " (strings equal under it are one group, the first seen its _id), $min/$max/$addToSet, $bucket, $sortByCount,"
            + " $facet, $lookup's match and the comparison expressions ($eq, $cmp, $in, ...); a leading $match comparing"
            + " strings under a non-simple collation scans the collection and is sent to every shard of a sharded"
            + " collection; refused with $merge (its on-field matching is binary), on time-series collections and on views"
            + " (167: a view's collation is simple)");
    /** A valid collation spec: any is a collection's default (MongoDB manual, "Collation"); create checks the rest. */
    private static final ValueCheck VALID_COLLATION = (path, value) -> Collation.parse(path, value);
    /**
     * The writes that find and order their documents under any collation: the filter, {@code sort}, {@code arrayFilters}
     * and the update operators that compare values (MongoDB manual, "Collation"; its {@code collation_update}
     * tests).
     */
    private static final Map<String, Option> WRITE_COLLATION = icuCollation("ICU collation (as find's; without one, the"
            + " collection's default) on the filter's string comparisons (not $regex), sort, arrayFilters and the update"
            + " operators that compare values ($min, $max, $addToSet, $pull, $pullAll, $push's $sort) and a pipeline"
            + " update's expressions; a string filter under a non-simple collation uses only indexes with that collation, and a string"
            + " condition on the shard key pins no shard (a multi write goes to every shard, a single-document one takes the"
            + " write-without-shard-key path); refused on time-series collections");

    private static final Map<String, Map<String, Option>> COMMANDS = new LinkedHashMap<>();
    private static final Map<String, Map<String, Option>> ENTRIES = new LinkedHashMap<>();
    /** The field of each command whose array entries are checked against {@link #ENTRIES}. */
    private static final Map<String, String> ENTRY_FIELDS = Map.of("update", "updates", "delete", "deletes", "createIndexes", "indexes");

    static {
        COMMANDS.put("find", options(ICU_COLLATION,
                implemented("filter", "query filter, $expr included"), implemented("sort", ""), implemented("projection", ""),
                implemented("hint", "index name, key pattern or {$natural: 1}"), implemented("skip", ""), implemented("limit", ""),
                implemented("batchSize", ""), implemented("singleBatch", ""), implemented("let", "variables for $expr"),
                implemented("allowDiskUse", "a blocking sort over internalQueryMaxBlockingSortMemoryUsageBytes spills to disk;"
                        + " false: it fails with 292; absent: allowDiskUseByDefault (true)"),
                conditional("max", "index bounds: not implemented", absentOrEmpty("max/min index bounds are not implemented")),
                conditional("min", "index bounds: not implemented", absentOrEmpty("max/min index bounds are not implemented")),
                conditional("returnKey", "false only", onlyFalse("returnKey is not implemented")),
                conditional("showRecordId", "false only", onlyFalse("showRecordId is not implemented")),
                conditional("tailable", "false only: capped collections do not exist", onlyFalse("tailable cursors need capped collections, which are not implemented")),
                conditional("awaitData", "false only", onlyFalse("awaitData needs tailable cursors, which are not implemented")),
                conditional("noCursorTimeout", "false only: idle cursors are reaped after the cursor timeout",
                        onlyFalse("cursors without a timeout are not implemented")),
                conditional("allowPartialResults", "false only: an unreachable shard fails the query",
                        onlyFalse("partial results from the reachable shards are not implemented")),
                accepted("oplogReplay", "deprecated; MongoDB ignores it too"),
                accepted("readOnce", "a storage hint with no effect on results")));
        COMMANDS.put("aggregate", options(AGGREGATE_COLLATION,
                implemented("pipeline", ""), implemented("cursor", "batchSize"), implemented("let", "variables for the pipeline"),
                implemented("explain", "answered by the router as the explain command (queryPlanner)"),
                implemented("hint", "for the leading $match's scan"),
                implemented("allowDiskUse", "$sort and $group over their budgets (internalQueryMaxBlockingSortMemoryUsageBytes,"
                        + " internalDocumentSourceGroupMaxMemoryBytes) spill to disk; false: they fail with 292; absent: allowDiskUseByDefault (true)"),
                accepted("bypassDocumentValidation", "no collection has validation rules (create refuses a validator)")));
        COMMANDS.put("count", options(ICU_COLLATION,
                implemented("query", "$expr included"), implemented("limit", ""), implemented("skip", ""), implemented("hint", "")));
        COMMANDS.put("distinct", options(ICU_COLLATION,
                implemented("key", ""), implemented("query", "$expr included"), implemented("hint", "")));
        COMMANDS.put("insert", options(
                implemented("documents", ""), implemented("ordered", ""),
                accepted("bypassDocumentValidation", "no collection has validation rules (create refuses a validator)")));
        COMMANDS.put("update", options(
                implemented("updates", "statements, see below"), implemented("ordered", ""), implemented("let", "variables for $expr and pipelines"),
                accepted("bypassDocumentValidation", "no collection has validation rules (create refuses a validator)")));
        COMMANDS.put("delete", options(
                implemented("deletes", "statements, see below"), implemented("ordered", ""), implemented("let", "variables for $expr")));
        COMMANDS.put("bulkWrite", options(
                implemented("ops", "insert, update and delete ops; an op's fields are checked as the fields of the insert document,"
                        + " update statement (filter = q, updateMods = u, constants = c) or delete statement (multi = limit 0) it becomes"),
                implemented("nsInfo", "ns; collectionUUID and encryptionInformation are refused (NotImplemented), isTimeseriesNamespace"
                        + " only false"),
                implemented("ordered", ""), implemented("errorsOnly", ""), implemented("cursor", "batchSize"),
                implemented("let", "variables for the update and delete ops"),
                accepted("bypassDocumentValidation", "no collection has validation rules (create refuses a validator)")));
        COMMANDS.put("findAndModify", options(WRITE_COLLATION,
                implemented("query", "$expr included"), implemented("sort", ""), implemented("remove", ""),
                implemented("update", "replacement, operators or pipeline"), implemented("new", ""), implemented("fields", ""),
                implemented("upsert", ""), implemented("arrayFilters", ""), implemented("hint", ""), implemented("let", ""),
                accepted("bypassDocumentValidation", "no collection has validation rules (create refuses a validator)")));
        COMMANDS.put("findandmodify", COMMANDS.get("findAndModify"));
        COMMANDS.put("createIndexes", options(
                implemented("indexes", "specifications, see below"),
                conditional("commitQuorum", "one node per shard: \"majority\", \"votingMembers\", 0 and 1 are satisfied",
                        CommandOptions::commitQuorum)));
        COMMANDS.put("create", options(
                conditional("collation", "the collection's default collation: reads without one and new indexes (the _id"
                        + " index included) use it; listed in full by listCollections; not with viewOn or timeseries"
                        + " (NotImplemented); a collection with a non-simple default cannot be sharded (NotImplemented)",
                        VALID_COLLATION),
                accepted("storageEngine", "recorded and listed; PostgreSQL is the only engine"),
                accepted("indexOptionDefaults", "recorded and listed; PostgreSQL is the only engine"),
                accepted("autoIndexId", "removed in MongoDB 4.0; every collection has its _id index"),
                conditional("capped", "false only: capped collections are not implemented", onlyFalse("capped collections are not implemented")),
                refused("size", "capped collections are not implemented"),
                refused("max", "capped collections are not implemented"), implemented("viewOn", "a read-only view on that collection or view"),
                implemented("pipeline", "the view's pipeline"), implemented("timeseries", "timeField, metaField, granularity or bucketMaxSpanSeconds + bucketRoundingSeconds"),
                implemented("expireAfterSeconds", "time-series collections only: buckets past it are removed"), refused("clusteredIndex", "clustered collections are not implemented"),
                refused("validator", "schema validation is not implemented"), refused("validationLevel", "schema validation is not implemented"),
                refused("validationAction", "schema validation is not implemented"),
                refused("changeStreamPreAndPostImages", "change streams are not implemented"),
                refused("encryptedFields", "queryable encryption is not implemented")));
        COMMANDS.put("collMod", options(
                implemented("timeseries", "time-series only: granularity (coarser only) or bucketMaxSpanSeconds = bucketRoundingSeconds"
                        + " (not decreasing); sharded: config.collections' timeseriesFields first, then every owning shard"),
                implemented("expireAfterSeconds", "time-series only: seconds or \"off\"; TTL of clustered collections is not implemented"),
                refused("index", "index modification (hidden, expireAfterSeconds, prepareUnique, unique) is not implemented"),
                refused("validator", "schema validation is not implemented"), refused("validationLevel", "schema validation is not implemented"),
                refused("validationAction", "schema validation is not implemented"),
                refused("viewOn", "changing a view's definition is not implemented"),
                refused("pipeline", "changing a view's definition is not implemented"),
                refused("cappedSize", "capped collections are not implemented"), refused("cappedMax", "capped collections are not implemented"),
                refused("changeStreamPreAndPostImages", "change streams are not implemented"),
                refused("timeseriesBucketsMayHaveMixedSchemaData", "buckets are always read as possibly mixed-schema"),
                refused("dryRun", "unique index conversion is not implemented")));
        COMMANDS.put("explain", options(implemented("explain", "the explained command, checked as that command"),
                implemented("verbosity", "queryPlanner, executionStats, allPlansExecution")));

        ENTRIES.put("update", options(WRITE_COLLATION,
                implemented("q", "$expr included"), implemented("u", "replacement, operators or pipeline"), implemented("c", "pipeline constants"),
                implemented("upsert", ""), implemented("multi", ""), implemented("arrayFilters", ""),
                implemented("hint", "refused (NotImplemented) on time-series collections"),
                implemented("sort", "single-document statements (MongoDB 8.0); refused with multi: true and (NotImplemented) on"
                        + " time-series collections"),
                accepted("upsertSupplied", "internal to MongoDB's time series updates; never set by clients")));
        ENTRIES.put("delete", options(WRITE_COLLATION,
                implemented("q", "$expr included"), implemented("limit", "0 or 1"),
                implemented("hint", "refused (NotImplemented) on time-series collections")));
        ENTRIES.put("createIndexes", options(
                implemented("key", "ascending, descending, one hashed field"), implemented("name", ""), implemented("unique", ""),
                implemented("sparse", ""), implemented("partialFilterExpression", ""), accepted("v", "index version"),
                accepted("background", "deprecated; MongoDB ignores it too"),
                implemented("collation", "the index's keys order and compare strings under it (a unique index refuses values"
                        + " equal under it); without one the collection's default; listed in full by listIndexes"),
                refused("expireAfterSeconds", "TTL indexes are not implemented"), refused("hidden", "hidden indexes are not implemented"),
                refused("storageEngine", "per-index storage engine options do not exist here"),
                refused("weights", "text indexes are not implemented"), refused("default_language", "text indexes are not implemented"),
                refused("language_override", "text indexes are not implemented"), refused("textIndexVersion", "text indexes are not implemented"),
                refused("2dsphereIndexVersion", "2dsphere indexes are not implemented"), refused("bits", "2d indexes are not implemented"),
                refused("min", "2d indexes are not implemented"), refused("max", "2d indexes are not implemented"),
                refused("wildcardProjection", "wildcard indexes are not implemented"),
                refused("prepareUnique", "converting indexes to unique is not implemented")));
    }

    private CommandOptions() {}

    /**
     * Checks {@code command} sent to {@code db} against the table; commands the table does not list pass unchecked.
     *
     * @throws CommandException as listed on the class
     */
    public static void check(String db, BsonDocument command) {
        String name = command.getFirstKey();
        Map<String, Option> options = COMMANDS.get(name);
        if (options == null) {
            return;
        }
        for (Map.Entry<String, BsonValue> field : command.entrySet()) {
            if (field.getKey().equals(name)) {
                continue;
            }
            Option option = find(options, name, field.getKey(), name + "." + field.getKey());
            option.check(name + "." + field.getKey(), field.getValue());
        }
        // txnNumber needs lsid, autocommit needs txnNumber, ... (InvalidOptions, as MongoDB)
        if (command.containsKey(OperationSessionInfo.TXN_NUMBER) && !command.containsKey(OperationSessionInfo.AUTOCOMMIT)) {
            retryableWriteOnly(name + "." + OperationSessionInfo.TXN_NUMBER);
        }
        OperationSessionInfo.of(command);
        if ((command.containsKey("stmtId") || command.containsKey("stmtIds")) && !command.containsKey("txnNumber")) {
            throw invalid(name + (command.containsKey("stmtId") ? ".stmtId" : ".stmtIds"), "needs txnNumber: statement ids belong to retryable writes");
        }
        BsonValue dollarDb = command.get("$db");
        if (dollarDb != null && !(dollarDb.isString() && dollarDb.asString().getValue().equals(db))) {
            throw invalid(name + ".$db", "names " + json(dollarDb) + " but the command was sent to database " + db);
        }
        String entryField = ENTRY_FIELDS.get(name);
        Map<String, Option> entryOptions = ENTRIES.get(name);
        if (entryField != null && entryOptions != null && command.get(entryField) instanceof BsonArray entries) {
            for (int i = 0; i < entries.size(); i++) {
                if (entries.get(i) instanceof BsonDocument entry) {
                    for (Map.Entry<String, BsonValue> field : entry.entrySet()) {
                        String path = name + "." + entryField + "." + i + "." + field.getKey();
                        Option option = entryOptions.get(field.getKey());
                        if (option == null && name.equals("createIndexes")) { // MongoDB's own error for index specifications
                            throw new CommandException(ErrorCode.InvalidIndexSpecificationOption, "The field '" + field.getKey()
                                    + "' is not valid for an index specification. Specification: " + entry.toJson());
                        }
                        find(entryOptions, null, field.getKey(), name + "." + entryField + "." + field.getKey()).check(path, field.getValue());
                    }
                }
            }
        }
        if (name.equals("explain") && command.get("explain") instanceof BsonDocument explained && !explained.isEmpty()) {
            check(db, explained);
        }
    }

    /**
     * Checks one field of an {@code update} or {@code delete} statement given elsewhere than in that command — a
     * {@code bulkWrite} op — against the statement table.
     *
     * @param command {@code update} or {@code delete}
     * @param field   the statement field ({@code q}, {@code collation}, ...)
     * @param path    the field as errors name it, e.g. {@code bulkWrite.ops.3.collation}
     * @throws CommandException 40415 for a field the statement does not have; the field's own refusal
     */
    public static void checkStatementField(String command, String field, String path, BsonValue value) {
        Map<String, Option> statement = ENTRIES.get(command);
        if (statement == null) {
            throw new IllegalArgumentException("no statement table for '" + command + "': update or delete");
        }
        find(statement, null, field, path).check(path, value);
    }

    /** Whether {@code field} is one of MongoDB's generic command arguments ({@code comment}, {@code lsid}, ...). */
    public static boolean isGeneric(String field) {
        return GENERIC.containsKey(field);
    }

    /**
     * The table: per command, its documented options (generic arguments under {@code "*"}; statement and index
     * specification fields under {@code "update.updates"}, {@code "delete.deletes"}, {@code "createIndexes.indexes"}).
     */
    public static Map<String, Map<String, Option>> table() {
        Map<String, Map<String, Option>> table = new LinkedHashMap<>();
        table.put("*", GENERIC);
        COMMANDS.forEach((name, options) -> {
            if (!name.equals("findandmodify")) {
                table.put(name, options);
            }
        });
        ENTRIES.forEach((name, options) -> table.put(name + "." + ENTRY_FIELDS.get(name), options));
        return table;
    }

    private static Option find(Map<String, Option> options, @Nullable String command, String field, String unknownName) {
        Option option = options.get(field);
        if (option == null && command != null) {
            option = GENERIC.get(field);
        }
        if (option == null) {
            throw new CommandException(ErrorCode.Location40415, "BSON field '" + unknownName + "' is an unknown field.");
        }
        return option;
    }

    // --- the value checks -------------------------------------------------------------------------------------

    /** The commands a {@code txnNumber} makes retryable (mongo/src/mongo/db/s/README.md "Retryable writes"). */
    private static final Set<String> RETRYABLE_WRITES = Set.of("insert", "update", "delete", "findAndModify", "findandmodify", "bulkWrite");

    private static void retryableWriteOnly(String path) {
        if (!RETRYABLE_WRITES.contains(path.substring(0, path.indexOf('.')))) {
            throw invalid(path, "is allowed only on retryable writes (insert, update, delete, findAndModify, bulkWrite) and on the"
                    + " statements of a transaction (autocommit: false)");
        }
    }

    private static void txnNumber(String path, BsonValue value) {
        if (!(value.isInt64() || value.isInt32())) {
            throw new CommandException(ErrorCode.TypeMismatch, "'" + path + "' must be a long, not " + json(value));
        }
    }

    private static void readPreference(String path, BsonValue value) {
        if (value.isDocument() && value.asDocument().get("mode") instanceof BsonString mode && mode.getValue().equals("secondary")) {
            throw notImplemented(path + ".mode", mode, "shards have no secondaries; every read is served by the primary");
        }
    }

    private static void commitQuorum(String path, BsonValue value) {
        boolean satisfied = value.isString() && Set.of("majority", "votingMembers").contains(value.asString().getValue())
                || value.isNumber() && List.of(0.0, 1.0).contains(value.asNumber().doubleValue());
        if (!satisfied) {
            throw invalid(path, json(value) + " cannot be satisfied: each shard is a single node");
        }
    }

    private static ValueCheck onlyFalse(String reason) {
        return (path, value) -> {
            boolean set = value.isBoolean() ? value.asBoolean().getValue() : !(value.isNumber() && value.asNumber().doubleValue() == 0);
            if (set) {
                throw notImplemented(path, value, reason);
            }
        };
    }

    private static ValueCheck absentOrEmpty(String reason) {
        return (path, value) -> {
            if (!(value.isDocument() && value.asDocument().isEmpty())) {
                throw notImplemented(path, value, reason);
            }
        };
    }

    private static CommandException notImplemented(String path, BsonValue value, String reason) {
        return new CommandException(ErrorCode.NotImplemented, "option '" + path + "' " + json(value) + " is not supported: " + reason);
    }

    /** {@code value} as relaxed Extended JSON, for messages. */
    static String json(BsonValue value) {
        String document = new BsonDocument("v", value).toJson();
        return document.substring("{\"v\": ".length(), document.length() - 1);
    }

    private static CommandException invalid(String path, String reason) {
        return new CommandException(ErrorCode.InvalidOptions, "option '" + path + "' " + reason);
    }

    // --- building the table -----------------------------------------------------------------------------------

    private static Option implemented(String name, String note) {
        return new Option(name, Treatment.IMPLEMENTED, note, ANY);
    }

    private static Option accepted(String name, String note) {
        return new Option(name, Treatment.ACCEPTED, note, ANY);
    }

    private static Option conditional(String name, String note, ValueCheck check) {
        return new Option(name, Treatment.CONDITIONAL, note, check);
    }

    /** A {@code collation} option taking any valid collation ({@link Collation#parse} refuses the invalid ones). */
    private static Map<String, Option> icuCollation(String note) {
        return options(conditional("collation", note, (path, value) -> Collation.parse(path, value)));
    }

    private static Option refused(String name, String reason) {
        return new Option(name, Treatment.REFUSED, reason, (path, value) -> {
            throw new CommandException(ErrorCode.NotImplemented, "option '" + path + "' is not supported: " + reason);
        });
    }

    private static Map<String, Option> options(Option... options) {
        return options(Map.of(), options);
    }

    private static Map<String, Option> options(Map<String, Option> shared, Option... options) {
        Map<String, Option> out = new LinkedHashMap<>(shared);
        for (Option option : options) {
            out.put(option.name(), option);
        }
        return Collections.unmodifiableMap(out);
    }
}
