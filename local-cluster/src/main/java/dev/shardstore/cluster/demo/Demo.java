package dev.shardstore.cluster.demo;

import dev.shardstore.cluster.load.BulkLoader;
import dev.shardstore.cluster.load.LoadListener;
import dev.shardstore.cluster.load.LoadReport;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.namespace.Namespace;
import java.io.PrintStream;
import java.nio.file.Path;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The guided tour behind {@code ./cluster demo}: shards {@code geo.cities} on a hashed {@code _id} (so the
 * empty collection starts with chunks on every shard), loads the bundled GeoNames cities through a router,
 * prints the chunk and data distribution, and runs a few queries — a targeted one and scatter-gather ones,
 * with the shards each explain names — printing each command and its answer —, then does the same for a sharded
 * time-series collection of the bundled weather ({@link WeatherTour}), and ends with the router's MongoDB connection
 * string, for mongosh and the drivers.
 * Every step is one method here, run in order by {@link #run}; repeatable, since it drops the
 * collection first.
 */
public final class Demo {
    /** Where the demo loads the cities. */
    public static final Namespace CITIES = new Namespace("geo", "cities");

    private static final int BATCH_SIZE = 1000;
    private static final int IN_FLIGHT = 4;

    private final RouterClient router;
    private final String connectionString;
    private final Path citiesFile;
    private final Path weatherFile;
    private final LoadListener loadListener;
    private final PrintStream out;

    /**
     * @param connectionString the same router's {@code mongodb://} connection string (its wire-protocol listener)
     * @param citiesFile       {@code data/cities.json.gz}
     * @param weatherFile      {@code data/weather.csv}
     * @param loadListener     shows the load's progress
     */
    public Demo(RouterClient router, String connectionString, Path citiesFile, Path weatherFile, LoadListener loadListener, PrintStream out) {
        this.router = router;
        this.connectionString = connectionString;
        this.citiesFile = citiesFile;
        this.weatherFile = weatherFile;
        this.loadListener = loadListener;
        this.out = out;
    }

    /**
     * Runs every step.
     *
     * @throws dev.shardstore.cluster.router.RouterException when the router is unreachable or a command fails
     */
    public void run() {
        dropCities();
        shardCities();
        printChunkDistribution();
        loadCities();
        printDataDistribution();
        countCitiesInFrance();
        firstFrenchCitiesByName();
        BsonValue parisId = citiesNamedParis();
        explainTargetedAndScatterGather(parisId);
        new WeatherTour(router, weatherFile, this).run();
        printConnectionString();
    }

    private void printConnectionString() {
        step("The router also speaks MongoDB's wire protocol: connect with mongosh or any MongoDB driver");
        out.println("   mongosh " + connectionString + "/" + CITIES.db());
        out.println("   " + CITIES.db() + "> db." + CITIES.collection() + ".countDocuments({country: \"FR\"})");
    }

    private void dropCities() {
        step("Start from an empty collection");
        drop(CITIES.db(), CITIES.collection());
    }

    /** Drops {@code db.collection}, printing the command and its reply; a collection that does not exist is fine. */
    void drop(String db, String collection) {
        BsonDocument reply = run(db, "{\"drop\": \"" + collection + "\"}");
        printReply(reply);
        if (!RouterClient.isOk(reply) && !"NamespaceNotFound".equals(codeName(reply))) {
            RouterClient.requireOk("drop", reply);
        }
    }

    private void shardCities() {
        step("Shard " + CITIES + " on a hashed _id: the empty collection is pre-split, 2 chunks per shard");
        printReply(RouterClient.requireOk("shardCollection", run("admin", "{\"shardCollection\": \"" + CITIES + "\", \"key\": {\"_id\": \"hashed\"}}")));
    }

    private void printChunkDistribution() {
        step("Its chunks in config.chunks (ranges of the _id hash, one owner each)");
        BsonDocument collection = firstBatch(RouterClient.requireOk("find", run("config",
                "{\"find\": \"collections\", \"filter\": {\"_id\": \"" + CITIES + "\"}}"))).getFirst().asDocument();
        BsonDocument find = new BsonDocument("find", new BsonString("chunks")).append("filter", new BsonDocument("uuid", collection.get("uuid")));
        for (BsonValue chunk : firstBatch(RouterClient.requireOk("find", router.run("config", find)))) {
            BsonDocument c = chunk.asDocument();
            out.printf("   %-10s [%s, %s)  version %s%n", c.getString("shard").getValue(), ExtendedJson.toJson(c.getDocument("min")),
                    ExtendedJson.toJson(c.getDocument("max")), versionOf(c.getDocument("lastmod")));
        }
    }

    private void printDataDistribution() {
        step("Where the documents went ($shardedDataDistribution)");
        printDataDistribution(CITIES.toString(), "documents");
    }

    /** Prints each shard's owned documents of {@code ns} (naming them {@code unit}) and bytes, from {@code $shardedDataDistribution}. */
    void printDataDistribution(String ns, String unit) {
        BsonArray collections = firstBatch(RouterClient.requireOk("aggregate", run("admin", "{\"aggregate\": 1, \"cursor\": {}, \"pipeline\": ["
                + "{\"$shardedDataDistribution\": {}}, {\"$match\": {\"ns\": \"" + ns + "\"}}]}")));
        if (collections.isEmpty()) {
            return;
        }
        for (BsonValue shard : collections.getFirst().asDocument().getArray("shards")) {
            BsonDocument s = shard.asDocument();
            out.printf("   %-10s %,9d %s %,12d bytes%n", s.getString("shardName").getValue(),
                    s.getNumber("numOwnedDocuments").longValue(), unit, s.getNumber("ownedSizeBytes").longValue());
        }
    }

    private void explainTargetedAndScatterGather(BsonValue parisId) {
        step("Explain: a shard-key equality goes to one shard, a query without the shard key to every shard");
        BsonDocument byId = new BsonDocument("explain", new BsonDocument("find", new BsonString("cities"))
                .append("filter", new BsonDocument("_id", parisId)));
        printExplainSummary(byId);
        printExplainSummary(ExtendedJson.parse("{\"explain\": {\"find\": \"cities\", \"filter\": {\"country\": \"FR\"}, \"sort\": {\"name\": 1}}}"));
    }

    /** Prints {@code stage: shard (shard plan), ...} from a mongos-style explain. */
    private void printExplainSummary(BsonDocument explain) {
        out.println("   " + CITIES.db() + "> " + ExtendedJson.toJson(explain));
        BsonDocument plan = RouterClient.requireOk("explain", router.run(CITIES.db(), explain)).getDocument("queryPlanner").getDocument("winningPlan");
        StringBuilder line = new StringBuilder("   " + plan.getString("stage").getValue() + ":");
        for (BsonValue shard : plan.getArray("shards")) {
            BsonDocument s = shard.asDocument();
            line.append(' ').append(s.getString("shardName").getValue()).append(" (").append(stageOf(s.getDocument("winningPlan", new BsonDocument()))).append(')');
        }
        out.println(line);
    }

    private static String stageOf(BsonDocument plan) {
        String stage = plan.getString("stage", new BsonString("?")).getValue();
        return plan.isDocument("inputStage") ? stage + " <- " + stageOf(plan.getDocument("inputStage")) : stage;
    }

    private static String versionOf(BsonDocument lastmod) {
        return lastmod.getNumber("major").intValue() + "|" + lastmod.getNumber("minor").intValue();
    }

    /** A command reply's {@code cursor.firstBatch}, empty when it has none. */
    static BsonArray firstBatch(BsonDocument reply) {
        return reply.getDocument("cursor", new BsonDocument()).getArray("firstBatch", new BsonArray());
    }

    private void loadCities() {
        step("Load " + citiesFile.getFileName() + " (GeoNames, 171,075 cities) into " + CITIES);
        LoadReport report = new BulkLoader(router, BATCH_SIZE, IN_FLIGHT).load(citiesFile, CITIES, loadListener);
        out.printf("   %,d documents inserted, %,d failed, in %.1f s (%,.0f documents/s)%n",
                report.inserted(), report.failed(), report.elapsed().toMillis() / 1000.0, report.documentsPerSecond());
        report.errorSamples().forEach(e -> out.println("   error: " + e));
    }

    private void countCitiesInFrance() {
        step("How many cities are in France? (GeoNames lists 8,941)");
        printReply(RouterClient.requireOk("count", command("{\"count\": \"cities\", \"query\": {\"country\": \"FR\"}}")));
    }

    private void firstFrenchCitiesByName() {
        step("The first five French cities by name");
        printDocuments(command("{\"find\": \"cities\", \"filter\": {\"country\": \"FR\"}, \"sort\": {\"name\": 1}, \"limit\": 5,"
                + " \"projection\": {\"_id\": 0, \"name\": 1, \"admin1\": 1, \"lat\": 1, \"lng\": 1}}"));
    }

    /** Returns the _id of Paris, France. */
    private BsonValue citiesNamedParis() {
        step("Every city named Paris, wherever it is");
        BsonDocument reply = command("{\"find\": \"cities\", \"filter\": {\"name\": \"Paris\"}, \"sort\": {\"country\": 1, \"admin1\": 1},"
                + " \"projection\": {\"name\": 1, \"country\": 1, \"admin1\": 1}}");
        printDocuments(reply);
        return firstBatch(reply).stream().map(BsonValue::asDocument).filter(d -> d.getString("country").getValue().equals("FR"))
                .findFirst().map(paris -> paris.get("_id")).orElseThrow(() -> new IllegalStateException("Paris, FR is not in the sample"));
    }

    /** Prints a step's title. */
    void step(String title) {
        out.println();
        out.println("== " + title);
    }

    /** Prints a command on the demo's database, runs it and returns the reply. */
    private BsonDocument command(String json) {
        return run(CITIES.db(), json);
    }

    /** Prints a command on {@code db}, runs it and returns the reply. */
    BsonDocument run(String db, String json) {
        out.println("   " + db + "> " + json);
        return router.run(db, ExtendedJson.parse(json));
    }

    /** Prints one line of output. */
    void print(String line) {
        out.println(line);
    }

    private void printReply(BsonDocument reply) {
        out.println("   " + ExtendedJson.toJson(reply));
    }

    /** Prints the documents of a find reply's first batch, one per line. */
    private void printDocuments(BsonDocument reply) {
        RouterClient.requireOk("find", reply);
        BsonArray batch = firstBatch(reply);
        out.println("   " + batch.size() + " document(s):");
        for (BsonValue doc : batch) {
            out.println("     " + ExtendedJson.toJson(doc.asDocument()));
        }
    }

    private static String codeName(BsonDocument reply) {
        return reply.isString("codeName") ? reply.getString("codeName").getValue() : "";
    }
}
