package dev.shardstore.cluster.crudspec;

import com.mongodb.ClientBulkWriteException;
import com.mongodb.ConnectionString;
import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoWriteException;
import com.mongodb.ReadConcern;
import com.mongodb.ReadConcernLevel;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Sorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Runs one file of MongoDB's driver CRUD specification tests in the unified test format
 * (mongodb/specifications {@code source/crud/tests/unified/*.json}) against a router's wire-protocol port, in
 * one of two modes: the tests' collections unsharded, or each {@code initialData} collection sharded on
 * {@code {_id: "hashed"}} before its documents are inserted.
 *
 * <p>What it covers: {@code runOnRequirements} (the server is taken as a sharded 8.0 cluster), {@code initialData},
 * the client/database/collection entities with their write concern, read concern and read preference, the
 * operations of {@link CrudOperations}, {@code expectResult} and {@code expectError} ({@code isError},
 * {@code isClientError}, {@code errorContains}, {@code errorCode}, {@code errorCodeName}, {@code errorLabelsContain},
 * {@code errorLabelsOmit}, a bulk write's partial {@code expectResult}, and a client bulk write's {@code writeErrors} and
 * {@code writeConcernErrors}) under {@link UnifiedMatcher}'s rules,
 * and {@code outcome}. Not covered: {@code expectEvents} (a test that has them is judged by its results and
 * outcome only), sessions, and anything else outside CRUD, which reports the test as {@link Status#RUNNER_GAP}.
 */
final class UnifiedTestRunner {
    /** How a test came out. */
    enum Status { PASS, FAIL, NOT_APPLICABLE, RUNNER_GAP }

    /** One test's verdict; {@code reason} is empty for a pass. */
    record Result(String file, String test, Status status, String reason) {
    }

    private static final String SERVER_VERSION = "8.0.0";
    private static final Set<String> WRITE_RESULT_OPS = Set.of("insertOne", "insertMany", "updateOne", "updateMany",
            "replaceOne", "deleteOne", "deleteMany", "bulkWrite", "runCommand");

    /**
     * The client entity keys this runner honours: observed events are not checked (see the class comment) and one
     * router is one mongos whatever {@code useMultipleMongoses} says; anything else (auto encryption, ...) is a gap.
     */
    private static final Set<String> CLIENT_KEYS = Set.of("id", "uriOptions", "observeEvents", "useMultipleMongoses");

    private final String connectionString;
    private final MongoClient setup;
    private final boolean sharded;

    /**
     * @param connectionString the router's {@code mongodb://host:port}, without options
     * @param setup a client for initial data and outcome reads (majority write concern is applied per call)
     * @param sharded whether each {@code initialData} collection is sharded on {@code {_id: "hashed"}}
     */
    UnifiedTestRunner(String connectionString, MongoClient setup, boolean sharded) {
        this.connectionString = connectionString;
        this.setup = setup;
        this.sharded = sharded;
    }

    /** Runs every test of one file; a file that cannot be read is one failed result. */
    List<Result> runFile(Path file) {
        String name = file.getFileName().toString();
        BsonDocument spec;
        try {
            spec = BsonDocument.parse(Files.readString(file));
        } catch (IOException | RuntimeException e) {
            return List.of(new Result(name, "(file)", Status.RUNNER_GAP, "unreadable: " + e.getMessage()));
        }
        List<Result> results = new ArrayList<>();
        Optional<String> fileGate = requirements(spec.getArray("runOnRequirements", new BsonArray()));
        for (BsonValue t : spec.getArray("tests")) {
            BsonDocument test = t.asDocument();
            String description = test.getString("description").getValue();
            Optional<String> gate = fileGate.or(() -> requirements(test.getArray("runOnRequirements", new BsonArray())));
            if (test.containsKey("skipReason")) {
                gate = Optional.of("skipReason: " + test.getString("skipReason").getValue());
            }
            if (gate.isPresent()) {
                results.add(new Result(name, description, Status.NOT_APPLICABLE, gate.get()));
            } else {
                results.add(runTest(name, spec, test));
            }
        }
        return results;
    }

    /** Empty when one of the alternatives fits a sharded 8.0 cluster without auth, CSFLE or serverless; else why not. */
    private static Optional<String> requirements(BsonArray alternatives) {
        if (alternatives.isEmpty()) {
            return Optional.empty();
        }
        List<String> reasons = new ArrayList<>();
        for (BsonValue alt : alternatives) {
            Optional<String> misfit = misfit(alt.asDocument());
            if (misfit.isEmpty()) {
                return Optional.empty();
            }
            reasons.add(misfit.get());
        }
        return Optional.of(String.join(" | ", reasons));
    }

    private static Optional<String> misfit(BsonDocument req) {
        if (req.containsKey("minServerVersion") && compareVersions(SERVER_VERSION, req.getString("minServerVersion").getValue()) < 0) {
            return Optional.of("minServerVersion " + req.getString("minServerVersion").getValue());
        }
        if (req.containsKey("maxServerVersion") && compareVersions(SERVER_VERSION, req.getString("maxServerVersion").getValue()) > 0) {
            return Optional.of("maxServerVersion " + req.getString("maxServerVersion").getValue());
        }
        if (req.containsKey("topologies") && req.getArray("topologies").stream()
                .noneMatch(v -> v.asString().getValue().startsWith("sharded"))) {
            return Optional.of("topologies " + req.getArray("topologies"));
        }
        if (req.containsKey("serverless") && req.getString("serverless").getValue().equals("require")) {
            return Optional.of("serverless");
        }
        if (req.getBoolean("auth", org.bson.BsonBoolean.FALSE).getValue()) {
            return Optional.of("auth");
        }
        if (req.containsKey("csfle")) {
            return Optional.of("csfle");
        }
        if (req.containsKey("serverParameters")) {
            return Optional.of("serverParameters " + req.getDocument("serverParameters"));
        }
        return Optional.empty();
    }

    private static int compareVersions(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < 3; i++) {
            int p = i < x.length ? Integer.parseInt(x[i]) : 0;
            int q = i < y.length ? Integer.parseInt(y[i]) : 0;
            if (p != q) {
                return Integer.compare(p, q);
            }
        }
        return 0;
    }

    private Result runTest(String file, BsonDocument spec, BsonDocument test) {
        String description = test.getString("description").getValue();
        Map<String, MongoClient> clients = new HashMap<>();
        try {
            loadInitialData(spec.getArray("initialData", new BsonArray()));
            Map<String, Object> entities = createEntities(spec.getArray("createEntities", new BsonArray()), clients);
            int i = 0;
            for (BsonValue op : test.getArray("operations")) {
                Optional<String> failure = runOperation(entities, op.asDocument());
                if (failure.isPresent()) {
                    return new Result(file, description, Status.FAIL, "operation " + i + " (" + op.asDocument().getString("name").getValue() + "): " + failure.get());
                }
                i++;
            }
            Optional<String> outcome = checkOutcome(test.getArray("outcome", new BsonArray()));
            return outcome.map(r -> new Result(file, description, Status.FAIL, "outcome: " + r))
                    .orElseGet(() -> new Result(file, description, Status.PASS, ""));
        } catch (CrudOperations.Unsupported e) {
            return new Result(file, description, Status.RUNNER_GAP, e.getMessage());
        } catch (CrudOperations.NotForThisDriver e) {
            return new Result(file, description, Status.NOT_APPLICABLE, e.getMessage());
        } catch (RuntimeException e) {
            return new Result(file, description, Status.FAIL, "setup/unexpected: " + oneLine(e));
        } finally {
            clients.values().forEach(MongoClient::close);
        }
    }

    private void loadInitialData(BsonArray initialData) {
        for (BsonValue v : initialData) {
            BsonDocument data = v.asDocument();
            String db = data.getString("databaseName").getValue();
            String coll = data.getString("collectionName").getValue();
            if (data.containsKey("createOptions")) {
                throw new CrudOperations.Unsupported("initialData createOptions " + data.getDocument("createOptions").keySet());
            }
            MongoDatabase database = setup.getDatabase(db).withWriteConcern(WriteConcern.MAJORITY);
            database.getCollection(coll).drop();
            List<BsonDocument> docs = data.getArray("documents").stream().map(BsonValue::asDocument).toList();
            if (sharded) {
                // no enableSharding first: since MongoDB 6.0 shardCollection does not need it
                setup.getDatabase("admin").runCommand(new BsonDocument("shardCollection", new BsonString(db + "." + coll))
                        .append("key", new BsonDocument("_id", new BsonString("hashed"))));
            } else if (docs.isEmpty()) {
                database.createCollection(coll); // the format's rule: an empty initialData still creates the collection
            }
            if (!docs.isEmpty()) {
                database.getCollection(coll, BsonDocument.class).insertMany(docs);
            }
        }
    }

    private Map<String, Object> createEntities(BsonArray definitions, Map<String, MongoClient> clients) {
        Map<String, Object> entities = new HashMap<>();
        for (BsonValue v : definitions) {
            BsonDocument def = v.asDocument();
            String kind = def.getFirstKey();
            BsonDocument body = def.getDocument(kind);
            String id = body.getString("id").getValue();
            switch (kind) {
                case "client" -> {
                    for (String key : body.keySet()) {
                        if (!CLIENT_KEYS.contains(key)) {
                            throw new CrudOperations.Unsupported("client entity " + key);
                        }
                    }
                    StringBuilder uri = new StringBuilder(connectionString).append("/?appName=crudspec");
                    body.getDocument("uriOptions", new BsonDocument()).forEach((k, value) ->
                            uri.append('&').append(k).append('=').append(value.isString() ? value.asString().getValue()
                                    : value.isBoolean() ? String.valueOf(value.asBoolean().getValue()) : String.valueOf(value.asNumber().longValue())));
                    MongoClient client = MongoClients.create(new ConnectionString(uri.toString()));
                    clients.put(id, client);
                    entities.put(id, client);
                }
                case "database" -> {
                    MongoClient client = (MongoClient) entities.get(body.getString("client").getValue());
                    MongoDatabase db = client.getDatabase(body.getString("databaseName").getValue());
                    BsonDocument options = body.getDocument("databaseOptions", new BsonDocument());
                    if (options.containsKey("writeConcern")) db = db.withWriteConcern(CrudOperations.writeConcern(options.getDocument("writeConcern")));
                    if (options.containsKey("readConcern")) db = db.withReadConcern(readConcern(options.getDocument("readConcern")));
                    if (options.containsKey("readPreference")) db = db.withReadPreference(readPreference(options.getDocument("readPreference")));
                    entities.put(id, db);
                }
                case "collection" -> entities.put(id, collectionEntity(entities, body));
                default -> throw new CrudOperations.Unsupported("entity " + kind);
            }
        }
        return entities;
    }

    /**
     * A collection entity with its options; an option the driver cannot express (a made-up read concern level)
     * gives an {@link CrudOperations.Unsupported} placeholder, so that only the operations on this entity are a
     * runner gap and not the file's other tests.
     */
    private static Object collectionEntity(Map<String, Object> entities, BsonDocument body) {
        MongoDatabase db = (MongoDatabase) entities.get(body.getString("database").getValue());
        MongoCollection<BsonDocument> coll = db.getCollection(body.getString("collectionName").getValue(), BsonDocument.class);
        BsonDocument options = body.getDocument("collectionOptions", new BsonDocument());
        try {
            if (options.containsKey("writeConcern")) coll = coll.withWriteConcern(CrudOperations.writeConcern(options.getDocument("writeConcern")));
            if (options.containsKey("readConcern")) coll = coll.withReadConcern(readConcern(options.getDocument("readConcern")));
            if (options.containsKey("readPreference")) coll = coll.withReadPreference(readPreference(options.getDocument("readPreference")));
            return coll;
        } catch (IllegalArgumentException e) {
            return new CrudOperations.Unsupported("collection " + body.getString("id").getValue() + " options: " + e.getMessage());
        }
    }

    private static ReadConcern readConcern(BsonDocument d) {
        return new ReadConcern(ReadConcernLevel.fromString(d.getString("level").getValue()));
    }

    /** A read preference entity option: {@code mode} and {@code maxStalenessSeconds}; anything else is a runner gap. */
    private static ReadPreference readPreference(BsonDocument d) {
        for (String key : d.keySet()) {
            if (!key.equals("mode") && !key.equals("maxStalenessSeconds")) {
                throw new CrudOperations.Unsupported("readPreference option " + key);
            }
        }
        String mode = d.getString("mode").getValue();
        return d.containsKey("maxStalenessSeconds")
                ? ReadPreference.valueOf(mode, List.of(), d.getNumber("maxStalenessSeconds").longValue(), TimeUnit.SECONDS)
                : ReadPreference.valueOf(mode);
    }

    /** Runs one operation; empty when its expectations hold, else the mismatch. */
    @SuppressWarnings("unchecked")
    private Optional<String> runOperation(Map<String, Object> entities, BsonDocument op) {
        String name = op.getString("name").getValue();
        String object = op.getString("object").getValue();
        BsonDocument args = op.getDocument("arguments", new BsonDocument());
        Object target = entities.get(object);
        BsonValue result;
        try {
            if (target instanceof CrudOperations.Unsupported gap) {
                throw gap;
            } else if (target instanceof MongoCollection<?> coll) {
                result = CrudOperations.onCollection((MongoCollection<BsonDocument>) coll, name, args);
            } else if (target instanceof MongoDatabase db) {
                result = CrudOperations.onDatabase(db, name, args);
            } else if (target instanceof MongoClient client) {
                result = CrudOperations.onClient(client, name, args);
            } else {
                throw new CrudOperations.Unsupported("operation " + name + " on " + object);
            }
        } catch (CrudOperations.Unsupported | CrudOperations.NotForThisDriver e) {
            throw e;
        } catch (RuntimeException e) {
            if (op.getBoolean("ignoreResultAndError", org.bson.BsonBoolean.FALSE).getValue()) {
                return Optional.empty();
            }
            if (!op.containsKey("expectError")) {
                return Optional.of("unexpected error: " + oneLine(e));
            }
            return checkError(op.getDocument("expectError"), e);
        }
        if (op.containsKey("expectError")) {
            return Optional.of("expected an error " + op.getDocument("expectError") + ", got result " + result);
        }
        if (op.containsKey("expectResult")) {
            return matchResult(name, op.get("expectResult"), result == null ? BsonNull.VALUE : result);
        }
        return Optional.empty();
    }

    private static Optional<String> matchResult(String name, BsonValue expected, BsonValue actual) {
        if (expected.isArray() && actual.isArray()) {
            if (expected.asArray().size() != actual.asArray().size()) {
                return Optional.of("expected " + expected + ", got " + actual);
            }
            for (int i = 0; i < expected.asArray().size(); i++) {
                Optional<String> m = UnifiedMatcher.match(expected.asArray().get(i), actual.asArray().get(i), true);
                if (m.isPresent()) {
                    return Optional.of("[" + i + "]" + m.get());
                }
            }
            return Optional.empty();
        }
        return UnifiedMatcher.match(expected, actual, !WRITE_RESULT_OPS.contains(name));
    }

    private static Optional<String> checkError(BsonDocument expect, RuntimeException e) {
        boolean server = e instanceof MongoServerException;
        String seen = " (got " + oneLine(e) + ")";
        if (expect.containsKey("isTimeoutError")) {
            throw new CrudOperations.Unsupported("expectError.isTimeoutError");
        }
        if (expect.containsKey("isClientError") && expect.getBoolean("isClientError").getValue() == server) {
            return Optional.of("isClientError " + expect.getBoolean("isClientError").getValue() + seen);
        }
        if (expect.containsKey("errorContains") && !String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT)
                .contains(expect.getString("errorContains").getValue().toLowerCase(Locale.ROOT))) {
            return Optional.of("errorContains '" + expect.getString("errorContains").getValue() + "'" + seen);
        }
        if (expect.containsKey("errorCode") && (!server || code(e) != expect.getNumber("errorCode").intValue())) {
            return Optional.of("errorCode " + expect.getNumber("errorCode").intValue() + seen);
        }
        if (expect.containsKey("errorCodeName") && (!server || !expect.getString("errorCodeName").getValue().equals(codeName(e)))) {
            return Optional.of("errorCodeName " + expect.getString("errorCodeName").getValue() + seen);
        }
        for (BsonValue label : expect.getArray("errorLabelsContain", new BsonArray())) {
            if (!(e instanceof MongoException me) || !me.hasErrorLabel(label.asString().getValue())) {
                return Optional.of("errorLabelsContain " + label + seen);
            }
        }
        for (BsonValue label : expect.getArray("errorLabelsOmit", new BsonArray())) {
            if (e instanceof MongoException me && me.hasErrorLabel(label.asString().getValue())) {
                return Optional.of("errorLabelsOmit " + label + seen);
            }
        }
        if (e instanceof ClientBulkWriteException clientBulk) {
            return checkClientBulkError(expect, clientBulk);
        }
        if (expect.containsKey("writeErrors") || expect.containsKey("writeConcernErrors")) {
            return Optional.of("expectError.writeErrors/writeConcernErrors need a client bulk write error" + seen);
        }
        if (expect.containsKey("expectResult")) {
            if (!(e instanceof MongoBulkWriteException bulk)) {
                return Optional.of("expectError.expectResult needs a bulk write error" + seen);
            }
            return UnifiedMatcher.match(expect.get("expectResult"), CrudOperations.bulkResult(bulk.getWriteResult()), false)
                    .map(m -> "partial result " + m);
        }
        return Optional.empty();
    }

    /**
     * A client bulk write's error: its partial result ({@code expectResult}; unset when the driver has none), its
     * write errors by model index ({@code writeErrors}, each matched as a document with {@code code} and
     * {@code message}) and its write concern errors ({@code writeConcernErrors}, {@code code} and {@code errmsg}).
     */
    private static Optional<String> checkClientBulkError(BsonDocument expect, ClientBulkWriteException e) {
        if (expect.containsKey("expectResult")) {
            BsonDocument partial = e.getPartialResult().map(CrudOperations::clientBulkResult).orElse(null);
            Optional<String> m = UnifiedMatcher.match(expect.get("expectResult"), partial, false);
            if (m.isPresent()) {
                return Optional.of("partial result " + m.get() + " (got " + oneLine(e) + ")");
            }
        }
        if (expect.containsKey("writeErrors")) {
            BsonDocument actual = new BsonDocument();
            e.getWriteErrors().forEach((index, error) -> actual.append(String.valueOf(index),
                    new BsonDocument("code", new BsonInt32(error.getCode())).append("message", new BsonString(error.getMessage()))));
            Optional<String> m = UnifiedMatcher.match(expect.get("writeErrors"), actual, true);
            if (m.isPresent()) {
                return Optional.of("writeErrors " + m.get());
            }
        }
        if (expect.containsKey("writeConcernErrors")) {
            BsonArray actual = new BsonArray();
            e.getWriteConcernErrors().forEach(error -> actual.add(
                    new BsonDocument("code", new BsonInt32(error.getCode())).append("errmsg", new BsonString(error.getMessage()))));
            Optional<String> m = UnifiedMatcher.match(expect.get("writeConcernErrors"), actual, false);
            if (m.isPresent()) {
                return Optional.of("writeConcernErrors " + m.get());
            }
        }
        return Optional.empty();
    }

    private static int code(RuntimeException e) {
        if (e instanceof MongoBulkWriteException bulk && !bulk.getWriteErrors().isEmpty()) {
            return bulk.getWriteErrors().get(0).getCode();
        }
        if (e instanceof MongoBulkWriteException bulk && bulk.getWriteConcernError() != null) {
            return bulk.getWriteConcernError().getCode();
        }
        return ((MongoServerException) e).getCode();
    }

    private static String codeName(RuntimeException e) {
        if (e instanceof MongoBulkWriteException bulk && bulk.getWriteConcernError() != null && bulk.getWriteErrors().isEmpty()) {
            return bulk.getWriteConcernError().getCodeName();
        }
        if (e instanceof MongoWriteException || e instanceof MongoBulkWriteException) {
            return "(write errors carry no codeName: code " + code(e) + ")";
        }
        return ((MongoServerException) e).getErrorCodeName();
    }

    private Optional<String> checkOutcome(BsonArray outcome) {
        for (BsonValue v : outcome) {
            BsonDocument expected = v.asDocument();
            String ns = expected.getString("databaseName").getValue() + "." + expected.getString("collectionName").getValue();
            List<BsonDocument> actual = setup.getDatabase(expected.getString("databaseName").getValue())
                    .getCollection(expected.getString("collectionName").getValue(), BsonDocument.class)
                    .withReadPreference(ReadPreference.primary()).withReadConcern(ReadConcern.LOCAL)
                    .find().sort(Sorts.ascending("_id")).into(new ArrayList<>());
            Optional<String> m = matchResult("find", expected.getArray("documents"), new BsonArray(new ArrayList<>(actual)));
            if (m.isPresent()) {
                return Optional.of(ns + " " + m.get());
            }
        }
        return Optional.empty();
    }

    private static String oneLine(Throwable e) {
        String message = e.getClass().getSimpleName() + ": " + e.getMessage();
        message = message.replace('\n', ' ');
        return message.length() > 300 ? message.substring(0, 300) + "..." : message;
    }
}
