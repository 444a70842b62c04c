package dev.shardstore.router.command;

import dev.shardstore.contracts.bson.CommandArgs;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.session.OperationSessionInfo;
import dev.shardstore.contracts.session.StatementIds;
import dev.shardstore.support.command.CommandOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * A parsed {@code bulkWrite} command (MongoDB 8.0; the driver "Bulk Write" specification, MongoDB manual
 * "bulkWrite"): {@code {bulkWrite: 1, ops: [...], nsInfo: [{ns}], ordered?: true, errorsOnly?: false, cursor?:
 * {batchSize}, let?, bypassDocumentValidation?}}. Every op is checked here, before any is run, so a malformed or
 * refused op writes nothing.
 *
 * <p>Ops: {@code {insert: <nsInfo index>, document}}, {@code {update: <i>, filter, updateMods, multi?, upsert?,
 * arrayFilters?, hint?, collation?, sort?, constants?}}, {@code {delete: <i>, filter, multi?, hint?, collation?}}. Each
 * becomes the statement of the collection command it is ({@code documents}/{@code updates}/{@code deletes} entry),
 * and its fields are checked as that statement's fields ({@link CommandOptions#checkStatementField}), named
 * {@code bulkWrite.ops.<i>.<field>}.
 *
 * @param ops         the ops in client order, each with its statement
 * @param namespaces  {@code nsInfo}'s namespaces by index
 * @param ordered     whether the first error stops the ops after it
 * @param errorsOnly  whether the results cursor holds the errors only
 * @param batchSize   the results cursor's first batch size, or null for every result at once
 * @param stmtIds     each op's statement id when the command is a retryable write, else null
 */
record BulkWriteRequest(List<Op> ops, List<Namespace> namespaces, boolean ordered, boolean errorsOnly, @Nullable Integer batchSize,
        int @Nullable [] stmtIds) {
    /** The collection command an op becomes. */
    enum Kind {
        INSERT("insert", "documents"), UPDATE("update", "updates"), DELETE("delete", "deletes");

        final String command;
        final String batchField;

        Kind(String command, String batchField) {
            this.command = command;
            this.batchField = batchField;
        }
    }

    /**
     * One op.
     *
     * @param index     its index in {@code ops}
     * @param kind      the command it becomes
     * @param namespace its target
     * @param statement the entry of that command's batch: the document to insert, or an update/delete statement
     */
    record Op(int index, Kind kind, Namespace namespace, BsonDocument statement) {}

    /** bulkWrite's update op fields and the update statement field each becomes. */
    private static final Map<String, String> UPDATE_FIELDS = Map.of("filter", "q", "updateMods", "u", "constants", "c", "multi", "multi",
            "upsert", "upsert", "arrayFilters", "arrayFilters", "hint", "hint", "collation", "collation", "sort", "sort");
    /** bulkWrite's delete op fields (but {@code multi}, which becomes {@code limit}) and the delete statement field each becomes. */
    private static final Map<String, String> DELETE_FIELDS = Map.of("filter", "q", "hint", "hint", "collation", "collation");

    /**
     * Parses {@code command}.
     *
     * @throws CommandException InvalidLength (16) for an empty {@code ops} or over 100,000 ops; TypeMismatch (14) for a
     *                          field of the wrong type; BadValue (2) for an op whose nsInfo index is out of range;
     *                          FailedToParse (9) for an op that is not insert, update or delete, or a missing field;
     *                          40415 for an unknown field; InvalidNamespace (73) for a namespace outside the user
     *                          databases; NotImplemented (238) for {@code nsInfo.collectionUUID} and
     *                          {@code encryptionInformation}; a statement field's own refusal
     */
    static BulkWriteRequest parse(BsonDocument command) {
        CommandArgs args = new CommandArgs(command);
        List<Namespace> namespaces = namespaces(args);
        BsonArray opsArray = args.requiredBatch("ops");
        List<Op> ops = new ArrayList<>(opsArray.size());
        for (int i = 0; i < opsArray.size(); i++) {
            ops.add(op(args, i, args.document(opsArray.get(i), "ops." + i), namespaces));
        }
        BsonDocument cursor = args.optionalDocument(command, "cursor", "cursor");
        Integer batchSize = cursor.containsKey("batchSize") ? (int) Math.min(Integer.MAX_VALUE, args.nonNegative(cursor.get("batchSize"), "cursor.batchSize")) : null;
        for (String field : cursor.keySet()) {
            if (!field.equals("batchSize")) {
                throw new CommandException(ErrorCode.Location40415, "BSON field 'bulkWrite.cursor." + field + "' is an unknown field.");
            }
        }
        int @Nullable [] stmtIds = OperationSessionInfo.of(command).filter(OperationSessionInfo::isRetryable)
                .map(session -> session.statementIds().of(ops.size())).orElse(null);
        return new BulkWriteRequest(List.copyOf(ops), namespaces, args.optionalBoolean(command, "ordered", "ordered", true),
                args.optionalBoolean(command, "errorsOnly", "errorsOnly", false), batchSize, stmtIds);
    }

    private static List<Namespace> namespaces(CommandArgs args) {
        BsonArray nsInfo = args.requiredArray("nsInfo");
        if (nsInfo.isEmpty()) {
            throw new CommandException(ErrorCode.InvalidLength, "BSON field 'bulkWrite.nsInfo' must hold at least one namespace");
        }
        List<Namespace> namespaces = new ArrayList<>(nsInfo.size());
        for (int i = 0; i < nsInfo.size(); i++) {
            String path = "nsInfo." + i;
            BsonDocument entry = args.document(nsInfo.get(i), path);
            for (Map.Entry<String, BsonValue> field : entry.entrySet()) {
                switch (field.getKey()) {
                    case "ns" -> { }
                    case "collectionUUID", "encryptionInformation" -> throw new CommandException(ErrorCode.NotImplemented,
                            "option 'bulkWrite." + path + "." + field.getKey() + "' is not supported: "
                                    + (field.getKey().equals("collectionUUID") ? "collection UUID checks are" : "queryable encryption is") + " not implemented");
                    case "isTimeseriesNamespace" -> {
                        if (args.optionalBoolean(entry, field.getKey(), path + ".isTimeseriesNamespace", false)) {
                            throw new CommandException(ErrorCode.InvalidOptions, "'bulkWrite." + path + ".isTimeseriesNamespace' is internal to MongoDB:"
                                    + " write to the time-series collection's own name");
                        }
                    }
                    default -> throw new CommandException(ErrorCode.Location40415, "BSON field 'bulkWrite.nsInfo." + field.getKey() + "' is an unknown field.");
                }
            }
            BsonValue ns = args.required(entry, "ns", path + ".ns");
            if (!ns.isString()) {
                throw new CommandException(ErrorCode.TypeMismatch, "BSON field 'bulkWrite." + path + ".ns' is the wrong type '"
                        + ns.getBsonType() + "', expected type 'string'");
            }
            Namespace namespace = Namespace.parse(ns.asString().getValue(), "bulkWrite." + path + ".ns");
            Namespaces.checkUserDatabase(namespace.db(), "bulkWrite");
            namespaces.add(namespace);
        }
        return List.copyOf(namespaces);
    }

    private static Op op(CommandArgs args, int index, BsonDocument op, List<Namespace> namespaces) {
        String path = "ops." + index;
        Kind kind = op.isEmpty() ? null : switch (op.getFirstKey()) {
            case "insert" -> Kind.INSERT;
            case "update" -> Kind.UPDATE;
            case "delete" -> Kind.DELETE;
            default -> null;
        };
        if (kind == null) {
            throw new CommandException(ErrorCode.FailedToParse, "BulkWrite ops entry " + index
                    + " must start with insert, update or delete, not " + (op.isEmpty() ? "nothing" : "'" + op.getFirstKey() + "'"));
        }
        BsonValue nsIndex = op.get(kind.command);
        if (nsIndex == null || !nsIndex.isInt32()) {
            throw new CommandException(ErrorCode.TypeMismatch, "BSON field 'bulkWrite." + path + "." + kind.command
                    + "' must be an int, the index of the op's namespace in nsInfo");
        }
        int ns = nsIndex.asInt32().getValue();
        if (ns < 0 || ns >= namespaces.size()) {
            throw new CommandException(ErrorCode.BadValue, "BulkWrite ops entry " + index + " has an invalid nsInfo index.");
        }
        BsonDocument statement = switch (kind) {
            case INSERT -> insertDocument(args, op, path);
            case UPDATE -> statement(args, op, path, UPDATE_FIELDS, Kind.UPDATE);
            case DELETE -> statement(args, op, path, DELETE_FIELDS, Kind.DELETE);
        };
        return new Op(index, kind, namespaces.get(ns), statement);
    }

    private static BsonDocument insertDocument(CommandArgs args, BsonDocument op, String path) {
        for (String field : op.keySet()) {
            if (!field.equals("insert") && !field.equals("document")) {
                throw new CommandException(ErrorCode.Location40415, "BSON field 'bulkWrite.ops.insert." + field + "' is an unknown field.");
            }
        }
        return args.document(required(op, "document", path), path + ".document");
    }

    /** The update or delete statement {@code op} becomes, each field checked as that statement's field. */
    private static BsonDocument statement(CommandArgs args, BsonDocument op, String path, Map<String, String> fields, Kind kind) {
        BsonDocument statement = new BsonDocument();
        for (Map.Entry<String, BsonValue> field : op.entrySet()) {
            String name = field.getKey();
            String fieldPath = "bulkWrite." + path + "." + name;
            if (name.equals(kind.command)) {
                continue;
            }
            if (kind == Kind.DELETE && name.equals("multi")) {
                statement.put("limit", new BsonInt32(args.optionalBoolean(op, "multi", path + ".multi", false) ? 0 : 1));
                continue;
            }
            String statementField = fields.get(name);
            if (statementField == null) {
                throw new CommandException(ErrorCode.Location40415, "BSON field 'bulkWrite.ops." + kind.command + "." + name + "' is an unknown field.");
            }
            CommandOptions.checkStatementField(kind.command, statementField, fieldPath, field.getValue());
            statement.put(statementField, field.getValue());
        }
        args.document(required(op, "filter", path), path + ".filter");
        if (kind == Kind.UPDATE) {
            BsonValue mods = required(op, "updateMods", path);
            if (!mods.isDocument() && !mods.isArray()) {
                throw new CommandException(ErrorCode.TypeMismatch, "BSON field 'bulkWrite." + path + ".updateMods' must be a document or a pipeline");
            }
        } else if (!statement.containsKey("limit")) {
            statement.put("limit", new BsonInt32(1));
        }
        return statement;
    }

    private static BsonValue required(BsonDocument op, String field, String path) {
        BsonValue value = op.get(field);
        if (value == null) {
            throw new CommandException(ErrorCode.FailedToParse, "BSON field 'bulkWrite." + path + "." + field + "' is missing but a required field");
        }
        return value;
    }
}
