package dev.shardstore.cluster.crudspec;

import com.mongodb.ClientBulkWriteException;
import com.mongodb.ClientSessionOptions;
import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCommandException;
import com.mongodb.ServerAddress;
import com.mongodb.TransactionOptions;
import com.mongodb.client.ClientSession;
import com.mongodb.event.CommandEvent;
import com.mongodb.event.CommandFailedEvent;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import java.lang.reflect.Field;
import java.util.Collections;
import java.util.HashSet;
import org.bson.BsonBoolean;
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
 * and {@code outcome}; the transactions specification's parts: session entities ({@code sessionOptions},
 * {@code defaultTransactionOptions}), the session operations ({@code startTransaction}, {@code commitTransaction},
 * {@code abortTransaction}, {@code withTransaction}, {@code endSession}), operations with a {@code session} argument,
 * the {@code testRunner} operations ({@code failPoint} and {@code targetedFailPoint} on the router's
 * {@code configureFailPoint}, {@code createEntities}, the session, collection and index assertions) and
 * {@code expectEvents} of command monitoring events, recorded by a {@link CommandListener} on each client entity
 * that observes them. Clients connect to the first router, or to all with {@code useMultipleMongoses: true}, so that
 * the driver pins a transaction's session to one (mongos pinning). Anything else (change streams, CMAP events, ...)
 * reports the test as {@link Status#RUNNER_GAP}; a fail point the router refuses as {@link Status#NOT_APPLICABLE}.
 * Before each test, {@code killAllSessions} on every router ends what a previous test left open.
 */
final class UnifiedTestRunner {
    /** How a test came out. */
    enum Status { PASS, FAIL, NOT_APPLICABLE, RUNNER_GAP }

    /** One test's verdict; {@code reason} is empty for a pass. */
    record Result(String file, String test, Status status, String reason) {
    }

    private static final String SERVER_VERSION = "8.0.0";
    /** The commands the format tells runners never to report as observed events (security-sensitive). */
    private static final Set<String> SENSITIVE_COMMANDS = Set.of("authenticate", "saslStart", "saslContinue", "getnonce",
            "createUser", "updateUser", "copydbgetnonce", "copydbsaslstart", "copydb", "hello", "isMaster", "ismaster");
    private static final Set<String> WRITE_RESULT_OPS = Set.of("insertOne", "insertMany", "updateOne", "updateMany",
            "replaceOne", "deleteOne", "deleteMany", "bulkWrite", "runCommand");

    /** The client entity keys this runner honours; anything else (auto encryption, ...) is a gap. */
    private static final Set<String> CLIENT_KEYS = Set.of("id", "uriOptions", "observeEvents", "useMultipleMongoses",
            "ignoreCommandMonitoringEvents");

    private final List<String> routerHosts;
    private final List<ServerAddress> routerAddresses;
    private final List<MongoClient> routers;
    private final MongoClient setup;
    private final boolean sharded;
    private final Map<String, String> driverSkips;

    /**
     * @param routerConnectionStrings each router's {@code mongodb://host:port}, without options
     * @param routers an internal client per router, in the same order, for {@code killAllSessions} and fail points;
     *     the first also loads initial data and reads outcomes (majority write concern is applied per call)
     * @param sharded whether each {@code initialData} collection is sharded on {@code {_id: "hashed"}}
     * @param driverSkips tests ({@code "<file> | <description>"}) whose expectation is the Java driver's to meet and
     *     that it does not meet, each with the reason: reported as not applicable, since they say nothing of the server
     */
    UnifiedTestRunner(List<String> routerConnectionStrings, List<MongoClient> routers, boolean sharded, Map<String, String> driverSkips) {
        if (routerConnectionStrings.isEmpty() || routerConnectionStrings.size() != routers.size()) {
            throw new IllegalArgumentException("one internal client per router, at least one router");
        }
        this.routerHosts = routerConnectionStrings.stream().map(c -> new ConnectionString(c).getHosts().get(0)).toList();
        this.routerAddresses = routerHosts.stream().map(ServerAddress::new).toList();
        this.routers = List.copyOf(routers);
        this.setup = routers.get(0);
        this.sharded = sharded;
        this.driverSkips = Map.copyOf(driverSkips);
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
            String driverSkip = driverSkips.get(name + " | " + description);
            if (driverSkip != null) {
                gate = Optional.of("the Java driver: " + driverSkip);
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
        if (req.getBoolean("auth", BsonBoolean.FALSE).getValue()) {
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
        TestState t = new TestState();
        try {
            killAllSessions();
            loadInitialData(spec.getArray("initialData", new BsonArray()));
            createEntities(t, spec.getArray("createEntities", new BsonArray()));
            int i = 0;
            for (BsonValue op : test.getArray("operations")) {
                Optional<String> failure = runOperation(t, op.asDocument(), false);
                if (failure.isPresent()) {
                    return new Result(file, description, Status.FAIL, "operation " + i + " (" + op.asDocument().getString("name").getValue() + "): " + failure.get());
                }
                i++;
            }
            Optional<String> events = checkEvents(t, test.getArray("expectEvents", new BsonArray()));
            if (events.isPresent()) {
                return new Result(file, description, Status.FAIL, "expectEvents: " + events.get());
            }
            Optional<String> outcome = checkOutcome(test.getArray("outcome", new BsonArray()));
            return outcome.map(r -> new Result(file, description, Status.FAIL, "outcome: " + r))
                    .orElseGet(() -> new Result(file, description, Status.PASS, ""));
        } catch (CrudOperations.Unsupported e) {
            return new Result(file, description, Status.RUNNER_GAP, e.getMessage());
        } catch (CrudOperations.NotApplicable e) {
            return new Result(file, description, Status.NOT_APPLICABLE, e.getMessage());
        } catch (Mismatch e) {
            return new Result(file, description, Status.FAIL, e.getMessage());
        } catch (RuntimeException e) {
            return new Result(file, description, Status.FAIL, "setup/unexpected: " + oneLine(e));
        } finally {
            t.close();
        }
    }

    /**
     * Ends every session of the cluster before a test, on each router, as the format's "Terminating Open
     * Transactions" asks, so that a transaction a failed test left open cannot block the next one.
     */
    private void killAllSessions() {
        for (MongoClient router : routers) {
            router.getDatabase("admin").runCommand(new BsonDocument("killAllSessions", new BsonArray()));
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
            // the format's "StaleDbVersion Errors on Sharded Clusters": a distinct on each router first, so that a
            // transaction's distinct does not meet a router's first use of the database version
            for (MongoClient router : routers) {
                router.getDatabase(db).getCollection(coll).distinct("_id", BsonValue.class).first();
            }
        }
    }

    /** Creates the entities of a {@code createEntities} list (the file's, or the operation's) into {@code t}. */
    private void createEntities(TestState t, BsonArray definitions) {
        for (BsonValue v : definitions) {
            BsonDocument def = v.asDocument();
            String kind = def.getFirstKey();
            BsonDocument body = def.getDocument(kind);
            String id = body.getString("id").getValue();
            switch (kind) {
                case "client" -> t.put(id, client(t, id, body));
                case "database" -> {
                    MongoClient client = (MongoClient) t.entity(body.getString("client").getValue());
                    MongoDatabase db = client.getDatabase(body.getString("databaseName").getValue());
                    BsonDocument options = body.getDocument("databaseOptions", new BsonDocument());
                    if (options.containsKey("writeConcern")) db = db.withWriteConcern(CrudOperations.writeConcern(options.getDocument("writeConcern")));
                    if (options.containsKey("readConcern")) db = db.withReadConcern(readConcern(options.getDocument("readConcern")));
                    if (options.containsKey("readPreference")) db = db.withReadPreference(CrudOperations.readPreference(options.getDocument("readPreference")));
                    t.put(id, db);
                }
                case "collection" -> t.put(id, collectionEntity(t, body));
                case "session" -> {
                    MongoClient client = (MongoClient) t.entity(body.getString("client").getValue());
                    ClientSession session = client.startSession(sessionOptions(body.getDocument("sessionOptions", new BsonDocument())));
                    t.sessions.put(id, session);
                    t.lsids.put(id, session.getServerSession().getIdentifier());
                    t.put(id, session);
                }
                default -> throw new CrudOperations.Unsupported("entity " + kind);
            }
        }
    }

    /**
     * A client entity: on the first router, or on every router with {@code useMultipleMongoses: true}; with
     * {@code observeEvents}, a command listener records the named command events (but those of
     * {@code ignoreCommandMonitoringEvents} and the format's security-sensitive commands) for {@code expectEvents}.
     */
    private MongoClient client(TestState t, String id, BsonDocument body) {
        for (String key : body.keySet()) {
            if (!CLIENT_KEYS.contains(key)) {
                throw new CrudOperations.Unsupported("client entity " + key);
            }
        }
        boolean multiple = body.getBoolean("useMultipleMongoses", BsonBoolean.FALSE).getValue();
        StringBuilder uri = new StringBuilder("mongodb://")
                .append(String.join(",", multiple ? routerHosts : routerHosts.subList(0, 1))).append("/?appName=unified-runner");
        body.getDocument("uriOptions", new BsonDocument()).forEach((k, value) ->
                uri.append('&').append(k).append('=').append(value.isString() ? value.asString().getValue()
                        : value.isBoolean() ? String.valueOf(value.asBoolean().getValue()) : String.valueOf(value.asNumber().longValue())));
        MongoClientSettings.Builder settings = MongoClientSettings.builder().applyConnectionString(new ConnectionString(uri.toString()));
        if (body.containsKey("observeEvents")) {
            Set<String> observed = new HashSet<>();
            body.getArray("observeEvents").forEach(e -> observed.add(e.asString().getValue()));
            Set<String> ignored = new HashSet<>(SENSITIVE_COMMANDS);
            body.getArray("ignoreCommandMonitoringEvents", new BsonArray()).forEach(c -> ignored.add(c.asString().getValue()));
            List<BsonDocument> events = t.events.computeIfAbsent(id, k -> Collections.synchronizedList(new ArrayList<>()));
            settings.addCommandListener(new EventRecorder(observed, ignored, events));
        }
        MongoClient client = MongoClients.create(settings.build());
        t.clients.add(client);
        return client;
    }

    /**
     * Records the command monitoring events a client entity observes, each as {@code {<eventType>: {commandName,
     * databaseName, command | reply}}}, the shape of the format's expected events.
     */
    private record EventRecorder(Set<String> observed, Set<String> ignored, List<BsonDocument> events) implements CommandListener {
        @Override
        public void commandStarted(CommandStartedEvent event) {
            add("commandStartedEvent", event.getCommandName(), event(event).append("command", event.getCommand().clone()));
        }

        @Override
        public void commandSucceeded(CommandSucceededEvent event) {
            add("commandSucceededEvent", event.getCommandName(), event(event).append("reply", event.getResponse().clone()));
        }

        @Override
        public void commandFailed(CommandFailedEvent event) {
            add("commandFailedEvent", event.getCommandName(), event(event));
        }

        private static BsonDocument event(CommandEvent event) {
            return new BsonDocument("commandName", new BsonString(event.getCommandName()))
                    .append("databaseName", new BsonString(event.getDatabaseName()));
        }

        private void add(String type, String commandName, BsonDocument fields) {
            if (observed.contains(type) && !ignored.contains(commandName)) {
                events.add(new BsonDocument(type, fields));
            }
        }
    }

    /** A session entity's {@code sessionOptions}: {@code causalConsistency}, {@code defaultTransactionOptions}. */
    private static ClientSessionOptions sessionOptions(BsonDocument options) {
        ClientSessionOptions.Builder b = ClientSessionOptions.builder();
        for (String key : options.keySet()) {
            switch (key) {
                case "causalConsistency" -> b.causallyConsistent(options.getBoolean(key).getValue());
                case "defaultTransactionOptions" -> b.defaultTransactionOptions(transactionOptions(options.getDocument(key)));
                default -> throw new CrudOperations.Unsupported("sessionOptions " + key);
            }
        }
        return b.build();
    }

    /** Transaction options ({@code readConcern}, {@code writeConcern}, {@code readPreference}, {@code maxCommitTimeMS}). */
    private static TransactionOptions transactionOptions(BsonDocument options) {
        TransactionOptions.Builder b = TransactionOptions.builder();
        for (String key : options.keySet()) {
            switch (key) {
                case "readConcern" -> b.readConcern(readConcern(options.getDocument(key)));
                case "writeConcern" -> b.writeConcern(CrudOperations.writeConcern(options.getDocument(key)));
                case "readPreference" -> b.readPreference(CrudOperations.readPreference(options.getDocument(key)));
                case "maxCommitTimeMS" -> b.maxCommitTime(options.getNumber(key).longValue(), TimeUnit.MILLISECONDS);
                default -> throw new CrudOperations.Unsupported("transaction option " + key);
            }
        }
        return b.build();
    }

    /**
     * A collection entity with its options; an option the driver cannot express (a made-up read concern level)
     * gives an {@link CrudOperations.Unsupported} placeholder, so that only the operations on this entity are a
     * runner gap and not the file's other tests.
     */
    private static Object collectionEntity(TestState t, BsonDocument body) {
        MongoDatabase db = (MongoDatabase) t.entity(body.getString("database").getValue());
        MongoCollection<BsonDocument> coll = db.getCollection(body.getString("collectionName").getValue(), BsonDocument.class);
        BsonDocument options = body.getDocument("collectionOptions", new BsonDocument());
        try {
            if (options.containsKey("writeConcern")) coll = coll.withWriteConcern(CrudOperations.writeConcern(options.getDocument("writeConcern")));
            if (options.containsKey("readConcern")) coll = coll.withReadConcern(readConcern(options.getDocument("readConcern")));
            if (options.containsKey("readPreference")) coll = coll.withReadPreference(CrudOperations.readPreference(options.getDocument("readPreference")));
            return coll;
        } catch (IllegalArgumentException e) {
            return new CrudOperations.Unsupported("collection " + body.getString("id").getValue() + " options: " + e.getMessage());
        }
    }

    private static ReadConcern readConcern(BsonDocument d) {
        return new ReadConcern(ReadConcernLevel.fromString(d.getString("level").getValue()));
    }

    /**
     * Runs one operation; empty when its expectations hold, else the mismatch. Inside a {@code withTransaction}
     * callback ({@code inCallback}) an error the operation raised is rethrown once its expectations are checked, so
     * that it reaches {@code withTransaction} as the format asks, and a mismatch is thrown as {@link Mismatch}.
     */
    @SuppressWarnings("unchecked")
    private Optional<String> runOperation(TestState t, BsonDocument op, boolean inCallback) {
        String name = op.getString("name").getValue();
        String object = op.getString("object").getValue();
        BsonDocument args = op.getDocument("arguments", new BsonDocument()).clone();
        BsonValue result;
        try {
            if (object.equals("testRunner")) {
                result = testRunnerOperation(t, name, args);
            } else {
                Object target = t.entity(object);
                ClientSession session = args.containsKey("session") ? t.session(args.remove("session").asString().getValue()) : null;
                if (target instanceof CrudOperations.Unsupported gap) {
                    throw gap;
                } else if (target instanceof MongoCollection<?> coll) {
                    result = CrudOperations.onCollection((MongoCollection<BsonDocument>) coll, session, name, args);
                } else if (target instanceof MongoDatabase db) {
                    result = CrudOperations.onDatabase(db, session, name, args);
                } else if (target instanceof MongoClient client) {
                    result = CrudOperations.onClient(client, session, name, args);
                } else if (target instanceof ClientSession own) {
                    result = sessionOperation(t, own, name, args);
                } else {
                    throw new CrudOperations.Unsupported("operation " + name + " on " + object);
                }
            }
        } catch (CrudOperations.Unsupported | CrudOperations.NotApplicable | Mismatch e) {
            throw e;
        } catch (RuntimeException e) {
            Optional<String> failure;
            if (op.getBoolean("ignoreResultAndError", BsonBoolean.FALSE).getValue()) {
                failure = Optional.empty();
            } else if (!op.containsKey("expectError")) {
                failure = Optional.of("unexpected error: " + oneLine(e));
            } else {
                failure = checkError(op.getDocument("expectError"), e);
            }
            if (inCallback) {
                throw failure.<RuntimeException>map(f -> new Mismatch("in the withTransaction callback, " + name + ": " + f)).orElse(e);
            }
            return failure;
        }
        Optional<String> failure = Optional.empty();
        if (op.containsKey("expectError")) {
            failure = Optional.of("expected an error " + op.getDocument("expectError") + ", got result " + result);
        } else if (op.containsKey("expectResult")) {
            failure = matchResult(name, op.get("expectResult"), result == null ? BsonNull.VALUE : result);
        }
        if (inCallback && failure.isPresent()) {
            throw new Mismatch("in the withTransaction callback, " + name + ": " + failure.get());
        }
        return failure;
    }

    /**
     * The session operations: {@code startTransaction} (with transaction options), {@code commitTransaction},
     * {@code abortTransaction}, {@code withTransaction} (its {@code callback} a list of operations, run by
     * {@link #runOperation} in the transaction the driver opens and retries) and {@code endSession}.
     */
    private BsonValue sessionOperation(TestState t, ClientSession session, String name, BsonDocument args) {
        switch (name) {
            case "startTransaction" -> session.startTransaction(transactionOptions(args));
            case "commitTransaction" -> {
                requireNoArguments(name, args);
                session.commitTransaction();
            }
            case "abortTransaction" -> {
                requireNoArguments(name, args);
                session.abortTransaction();
            }
            case "endSession" -> {
                requireNoArguments(name, args);
                session.close();
            }
            case "withTransaction" -> {
                BsonArray callback = args.remove("callback").asArray();
                TransactionOptions options = transactionOptions(args);
                session.withTransaction(() -> {
                    for (BsonValue op : callback) {
                        runOperation(t, op.asDocument(), true);
                    }
                    return null;
                }, options);
            }
            default -> throw new CrudOperations.Unsupported("session operation " + name);
        }
        return null;
    }

    /**
     * The {@code testRunner} operations: {@code failPoint} and {@code targetedFailPoint} (a test whose fail point the
     * server refuses, MongoDB's {@code failCommand} among them, is not applicable), {@code createEntities}, the
     * session assertions ({@code assertSessionTransactionState}, {@code assertSessionPinned},
     * {@code assertSessionUnpinned}) and the catalog assertions ({@code assertCollectionExists} and
     * {@code assertIndexExists} and their negations), each a {@link Mismatch} when it does not hold.
     */
    private BsonValue testRunnerOperation(TestState t, String name, BsonDocument args) {
        switch (name) {
            case "failPoint" -> {
                t.entity(args.getString("client").getValue()); // the format's client is the first router's: see client()
                configureFailPoint(t, routers.get(0), args.getDocument("failPoint"));
            }
            case "targetedFailPoint" -> {
                ServerAddress pinned = t.session(args.getString("session").getValue()).getPinnedServerAddress();
                if (pinned == null) {
                    throw new Mismatch("targetedFailPoint: session " + args.getString("session").getValue() + " is not pinned to a router");
                }
                configureFailPoint(t, routers.get(routerAddresses.indexOf(pinned)), args.getDocument("failPoint"));
            }
            case "createEntities" -> createEntities(t, args.getArray("entities"));
            case "assertSessionTransactionState" -> {
                String expected = args.getString("state").getValue();
                String actual = transactionState(t.session(args.getString("session").getValue()));
                if (!expected.equals(actual)) {
                    throw new Mismatch("assertSessionTransactionState: expected " + expected + ", got " + actual);
                }
            }
            case "assertSessionPinned", "assertSessionUnpinned" -> {
                ServerAddress pinned = t.session(args.getString("session").getValue()).getPinnedServerAddress();
                if ((pinned != null) != name.equals("assertSessionPinned")) {
                    throw new Mismatch(name + ": the session's pinned router is " + pinned);
                }
            }
            case "assertCollectionExists", "assertCollectionNotExists" -> {
                String coll = args.getString("collectionName").getValue();
                boolean exists = setup.getDatabase(args.getString("databaseName").getValue()).listCollectionNames()
                        .into(new ArrayList<>()).contains(coll);
                if (exists != name.equals("assertCollectionExists")) {
                    throw new Mismatch(name + ": collection " + coll + (exists ? " exists" : " does not exist"));
                }
            }
            case "assertIndexExists", "assertIndexNotExists" -> {
                String index = args.getString("indexName").getValue();
                boolean exists = setup.getDatabase(args.getString("databaseName").getValue())
                        .getCollection(args.getString("collectionName").getValue()).listIndexes(BsonDocument.class)
                        .map(i -> i.getString("name").getValue()).into(new ArrayList<>()).contains(index);
                if (exists != name.equals("assertIndexExists")) {
                    throw new Mismatch(name + ": index " + index + (exists ? " exists" : " does not exist"));
                }
            }
            default -> throw new CrudOperations.Unsupported("testRunner operation " + name);
        }
        return null;
    }

    /**
     * Sends {@code configureFailPoint} to one router and records it to be turned off after the test; a fail point the
     * router refuses (an unknown name, or a mode or data its {@code FailPointCommands} do not take) makes the test
     * not applicable, naming the refusal.
     */
    private static void configureFailPoint(TestState t, MongoClient router, BsonDocument command) {
        try {
            router.getDatabase("admin").runCommand(command);
        } catch (MongoCommandException e) {
            throw new CrudOperations.NotApplicable("fail point " + command.getString("configureFailPoint").getValue()
                    + " " + command.getDocument("data", new BsonDocument()).keySet() + ": the router refuses it: "
                    + e.getErrorCodeName() + " " + e.getErrorMessage());
        }
        t.failPoints.add(() -> router.getDatabase("admin").runCommand(new BsonDocument("configureFailPoint",
                command.get("configureFailPoint")).append("mode", new BsonString("off"))));
    }

    /**
     * A session's transaction state in the format's words ({@code none}, {@code starting}, {@code in_progress},
     * {@code committed}, {@code aborted}). The Java driver keeps it private in {@code ClientSessionImpl}
     * ({@code transactionState}: NONE, IN, COMMITTED, ABORTED; {@code messageSentInCurrentTransaction} tells
     * starting from in progress), so it is read by reflection.
     */
    private static String transactionState(ClientSession session) {
        try {
            Field state = session.getClass().getDeclaredField("transactionState");
            Field sent = session.getClass().getDeclaredField("messageSentInCurrentTransaction");
            state.setAccessible(true);
            sent.setAccessible(true);
            return switch (String.valueOf(state.get(session))) {
                case "NONE" -> "none";
                case "IN" -> sent.getBoolean(session) ? "in_progress" : "starting";
                case "COMMITTED" -> "committed";
                case "ABORTED" -> "aborted";
                default -> "unknown " + state.get(session);
            };
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new CrudOperations.Unsupported("assertSessionTransactionState: cannot read the driver's session state: " + e);
        }
    }

    private static void requireNoArguments(String name, BsonDocument args) {
        if (!args.isEmpty()) {
            throw new CrudOperations.Unsupported(name + " arguments " + args.keySet());
        }
    }

    /**
     * {@code expectEvents}: for each client, its observed command events matched in order against the expected
     * ones ({@code commandName}, {@code databaseName}, and {@code command} or {@code reply} under the
     * {@link UnifiedMatcher} rules with {@code $$sessionLsid}), with no more observed than expected unless
     * {@code ignoreExtraEvents}. Other event types ({@code cmap}, {@code sdam}) are a runner gap.
     */
    private static Optional<String> checkEvents(TestState t, BsonArray expectEvents) {
        for (BsonValue v : expectEvents) {
            BsonDocument expect = v.asDocument();
            String client = expect.getString("client").getValue();
            String type = expect.getString("eventType", new BsonString("command")).getValue();
            if (!type.equals("command")) {
                throw new CrudOperations.Unsupported("expectEvents eventType " + type);
            }
            List<BsonDocument> actual = List.copyOf(t.events.getOrDefault(client, List.of()));
            BsonArray expected = expect.getArray("events");
            boolean extraAllowed = expect.getBoolean("ignoreExtraEvents", BsonBoolean.FALSE).getValue();
            if (actual.size() < expected.size() || (!extraAllowed && actual.size() > expected.size())) {
                return Optional.of(client + ": expected " + expected.size() + " events, observed " + actual.size() + ": " + names(actual));
            }
            for (int i = 0; i < expected.size(); i++) {
                BsonDocument e = expected.get(i).asDocument();
                BsonDocument a = actual.get(i);
                if (!a.getFirstKey().equals(e.getFirstKey())) {
                    return Optional.of(client + " event " + i + ": expected a " + e.getFirstKey() + ", observed " + a.toJson());
                }
                // the command or reply is matched with extra fields allowed ($clusterTime, lsid, ...); see UnifiedMatcher
                Optional<String> m = UnifiedMatcher.match(e.get(e.getFirstKey()), a.get(a.getFirstKey()), false, t.lsids);
                if (m.isPresent()) {
                    return Optional.of(client + " event " + i + " (" + a.getDocument(a.getFirstKey()).getString("commandName").getValue() + ") " + m.get());
                }
            }
        }
        return Optional.empty();
    }

    private static List<String> names(List<BsonDocument> events) {
        return events.stream().map(e -> e.getDocument(e.getFirstKey()).getString("commandName").getValue()).toList();
    }

    /** An expectation of the test that does not hold, raised where returning it is not possible (callbacks, assertions). */
    static final class Mismatch extends RuntimeException {
        Mismatch(String what) {
            super(what);
        }
    }

    /**
     * One test's entities and what they recorded: clients, sessions with their lsids, observed events by client id,
     * and how to turn off the fail points it configured. Closing it turns them off and ends sessions, then clients.
     */
    private static final class TestState implements AutoCloseable {
        private final Map<String, Object> entities = new HashMap<>();
        private final List<MongoClient> clients = new ArrayList<>();
        private final Map<String, ClientSession> sessions = new HashMap<>();
        private final Map<String, BsonDocument> lsids = new HashMap<>();
        private final Map<String, List<BsonDocument>> events = new HashMap<>();
        private final List<Runnable> failPoints = new ArrayList<>();

        void put(String id, Object entity) {
            if (entities.putIfAbsent(id, entity) != null) {
                throw new IllegalStateException("entity " + id + " defined twice");
            }
        }

        Object entity(String id) {
            Object entity = entities.get(id);
            if (entity == null) {
                throw new IllegalStateException("no entity " + id);
            }
            return entity;
        }

        ClientSession session(String id) {
            ClientSession session = sessions.get(id);
            if (session == null) {
                throw new IllegalStateException("no session entity " + id);
            }
            return session;
        }

        @Override
        public void close() {
            failPoints.forEach(Runnable::run);
            sessions.values().forEach(ClientSession::close);
            clients.forEach(MongoClient::close);
        }
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
