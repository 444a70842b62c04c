package dev.shardstore.cluster.demo;

import dev.shardstore.cluster.load.BulkLoader;
import dev.shardstore.cluster.load.LoadListener;
import dev.shardstore.cluster.load.LoadReport;
import dev.shardstore.cluster.load.Namespace;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.io.PrintStream;
import java.nio.file.Path;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The guided tour behind {@code ./cluster demo}: loads the bundled GeoNames cities into
 * {@code geo.cities} through a router and runs a few queries, printing each command and its answer.
 * Every step is one method here, run in order by {@link #run}; repeatable, since it drops the
 * collection first.
 */
public final class Demo {
    /** Where the demo loads the cities. */
    public static final Namespace CITIES = new Namespace("geo", "cities");

    private static final int BATCH_SIZE = 1000;
    private static final int IN_FLIGHT = 4;

    private final RouterClient router;
    private final Path citiesFile;
    private final LoadListener loadListener;
    private final PrintStream out;

    /**
     * @param citiesFile   {@code data/cities.json.gz}
     * @param loadListener shows the load's progress
     */
    public Demo(RouterClient router, Path citiesFile, LoadListener loadListener, PrintStream out) {
        this.router = router;
        this.citiesFile = citiesFile;
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
        loadCities();
        countCitiesInFrance();
        firstFrenchCitiesByName();
        citiesNamedParis();
    }

    private void dropCities() {
        step("Start from an empty collection");
        BsonDocument reply = command("{\"drop\": \"cities\"}");
        printReply(reply);
        if (!RouterClient.isOk(reply) && !"NamespaceNotFound".equals(codeName(reply))) {
            RouterClient.requireOk("drop", reply);
        }
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

    private void citiesNamedParis() {
        step("Every city named Paris, wherever it is");
        printDocuments(command("{\"find\": \"cities\", \"filter\": {\"name\": \"Paris\"},"
                + " \"projection\": {\"_id\": 0, \"name\": 1, \"country\": 1, \"admin1\": 1}}"));
    }

    private void step(String title) {
        out.println();
        out.println("== " + title);
    }

    /** Prints a command on the demo's database, runs it and returns the reply. */
    private BsonDocument command(String json) {
        out.println("   " + CITIES.database() + "> " + json);
        return router.run(CITIES.database(), ExtendedJson.parse(json));
    }

    private void printReply(BsonDocument reply) {
        out.println("   " + ExtendedJson.toJson(reply));
    }

    /** Prints the documents of a find reply's first batch, one per line. */
    private void printDocuments(BsonDocument reply) {
        RouterClient.requireOk("find", reply);
        BsonArray batch = reply.getDocument("cursor", new BsonDocument()).getArray("firstBatch", new BsonArray());
        out.println("   " + batch.size() + " document(s):");
        for (BsonValue doc : batch) {
            out.println("     " + ExtendedJson.toJson(doc.asDocument()));
        }
    }

    private static String codeName(BsonDocument reply) {
        return reply.isString("codeName") ? reply.getString("codeName").getValue() : "";
    }
}
