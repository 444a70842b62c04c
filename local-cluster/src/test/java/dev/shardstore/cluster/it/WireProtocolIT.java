package dev.shardstore.cluster.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoNamespace;
import com.mongodb.ClientBulkWriteException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Accumulators;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.InsertOneModel;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import com.mongodb.client.model.bulk.ClientBulkWriteOptions;
import com.mongodb.client.model.bulk.ClientBulkWriteResult;
import com.mongodb.client.model.bulk.ClientNamespacedWriteModel;
import com.mongodb.client.model.bulk.ClientUpdateOneOptions;
import com.mongodb.client.result.DeleteResult;
import com.mongodb.client.result.UpdateResult;
import dev.shardstore.cluster.LocalCluster;
import dev.shardstore.cluster.router.RouterClient;
import dev.shardstore.contracts.bson.ExtendedJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.data.annotation.Id;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.util.FileSystemUtils;

/**
 * The router's MongoDB wire protocol end to end, on the shared cluster ({@link OnSharedCluster}; its database is
 * {@code wire}): the official Java sync
 * driver runs the sharding admin commands and every CRUD helper an application uses against a sharded collection,
 * each result compared with what the REST endpoint answers for the same data; Spring Data MongoDB's
 * {@link MongoTemplate} does a Spring Boot user's first round trip; a client that asks for zlib compression reads
 * through OP_COMPRESSED; and mongosh, installed from npm into
 * {@code ~/.m2/shardstore} once per machine, runs a script.
 */
@OnSharedCluster
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WireProtocolIT {
    private static final List<String> COUNTRIES = List.of("BR", "DE", "FR", "JP", "US");
    private static final int CITIES = 600;

    private static LocalCluster cluster;
    private static MongoClient client;
    private static RouterClient rest;
    private static MongoCollection<BsonDocument> cities;

    /** The mongosh the script runs in (pinned: the script reads its sh.status() report). */
    private static final String MONGOSH_VERSION = "2.12.0";
    /**
     * Where it is installed: under {@code ~/.m2}, the one place a run may reuse what an earlier run left, so that a fresh
     * clone does not pay npm's install again (about 45 CPU seconds and 150 MB, next to the cluster's start on 2 cores).
     */
    private static final Path MONGOSH_PREFIX = Path.of(System.getProperty("user.home"), ".m2", "shardstore", "mongosh-" + MONGOSH_VERSION);
    private static final Path MONGOSH = MONGOSH_PREFIX.resolve("node_modules/.bin/mongosh");
    /** npm's install of mongosh when it is not there yet: started first, so that it overlaps the other tests. */
    private static CompletableFuture<Result> mongoshInstall;

    @BeforeAll
    static void connect(MigrationCluster shared) {
        mongoshInstall = CompletableFuture.supplyAsync(WireProtocolIT::installMongosh, Thread.ofVirtual()::start);
        cluster = shared.cluster;
        rest = new RouterClient(cluster.routerUrl(1), Duration.ofSeconds(120));
        client = MongoClients.create(cluster.connectionString(1) + "/?appName=WireProtocolIT");
        cities = client.getDatabase("wire").getCollection("cities", BsonDocument.class);
    }

    @AfterAll
    static void disconnect() {
        if (client != null) {
            client.close();
        }
    }

    private static BsonDocument city(int i) {
        return new BsonDocument("_id", new BsonInt32(i))
                .append("name", new BsonString("city" + String.format("%04d", (i * 7919) % CITIES)))
                .append("country", new BsonString(COUNTRIES.get(i % COUNTRIES.size())))
                .append("population", new BsonInt32(1000 + (i * 104_729) % 90_000));
    }

    /** A document as REST renders it (relaxed Extended JSON), so both front ends compare with the same number types. */
    private static BsonDocument asJson(BsonDocument doc) {
        return ExtendedJson.parse(ExtendedJson.toJson(doc));
    }

    private static List<BsonDocument> asJson(List<BsonDocument> docs) {
        return docs.stream().map(WireProtocolIT::asJson).toList();
    }

    private static BsonDocument restOk(String db, String json) {
        return RouterClient.requireOk(json, rest.run(db, ExtendedJson.parse(json)));
    }

    /** Every document of a REST cursor reply, through REST getMores. */
    private static List<BsonDocument> restDrain(String db, String collection, BsonDocument reply) {
        return ItSupport.drain(rest, db, collection, reply);
    }

    private static List<BsonDocument> restFind(String json) {
        return restDrain("wire", "cities", restOk("wire", json));
    }

    @Test
    @Order(1)
    void shardingAdminCommandsRunThroughRunCommand() {
        MongoDatabase admin = client.getDatabase("admin");
        Document shards = admin.runCommand(new Document("listShards", 1));
        assertThat(shards.getList("shards", Document.class)).extracting(s -> s.getString("_id")).containsExactlyInAnyOrder("shard1", "shard2");

        // the cities on a hashed _id: chunks on both shards from the start
        Document sharded = admin.runCommand(new Document("shardCollection", "wire.cities").append("key", new Document("_id", "hashed")));
        assertThat(sharded.getString("collectionsharded")).isEqualTo("wire.cities");
        assertThat(chunksOf("wire.cities")).extracting(c -> c.getString("shard").getValue()).contains("shard1", "shard2");

        // a ranged collection split in two
        admin.runCommand(new Document("shardCollection", "wire.ranged").append("key", new Document("country", 1)));
        Document split = admin.runCommand(new Document("split", "wire.ranged").append("middle", new Document("country", "FR")));
        assertThat(split.get("ok", Number.class).doubleValue()).isEqualTo(1.0);
        assertThat(chunksOf("wire.ranged")).extracting(c -> c.getDocument("min").toJson()).contains("{\"country\": \"FR\"}");
        assertThat(chunksOf("wire.ranged")).hasSize(2);
        // an admin's look at the catalog through a driver: an operator, a sort and a projection on config.chunks
        BsonDocument ranged = client.getDatabase("config").getCollection("collections", BsonDocument.class)
                .find(Filters.eq("_id", "wire.ranged")).first();
        assertThat(client.getDatabase("config").getCollection("chunks", BsonDocument.class)
                .find(Filters.and(Filters.eq("uuid", ranged.get("uuid")), Filters.exists("min.country")))
                .sort(new Document("min", -1)).projection(new Document("min", 1).append("_id", 0)).into(new ArrayList<>()))
                .extracting(BsonDocument::toJson).containsExactly("{\"min\": {\"country\": \"FR\"}}", "{\"min\": {\"country\": {\"$minKey\": 1}}}");
        // and an aggregation over it, run on the router: chunks per shard, as sh.status() counts them
        assertThat(client.getDatabase("config").getCollection("chunks", BsonDocument.class).aggregate(List.of(
                        Aggregates.match(Filters.eq("uuid", ranged.get("uuid"))), Aggregates.group("$shard", Accumulators.sum("n", 1))))
                .into(new ArrayList<>()))
                .containsExactly(new BsonDocument("_id", chunksOf("wire.ranged").getFirst().get("shard")).append("n", new BsonInt32(2)));

        assertThat(asJson(new BsonDocument("shards", BsonDocument.parse(shards.toJson()).get("shards"))))
                .isEqualTo(asJson(new BsonDocument("shards", restOk("admin", "{\"listShards\": 1}").get("shards"))));
    }

    private static List<BsonDocument> chunksOf(String ns) {
        BsonDocument collection = client.getDatabase("config").getCollection("collections", BsonDocument.class).find(Filters.eq("_id", ns)).first();
        assertThat(collection).as(ns).isNotNull();
        return client.getDatabase("config").getCollection("chunks", BsonDocument.class).find(Filters.eq("uuid", collection.get("uuid")))
                .into(new ArrayList<>());
    }

    @Test
    @Order(2)
    void insertManyAndFindWithFilterSortProjectionAndBatchSizeAcrossGetMores() {
        List<BsonDocument> docs = new ArrayList<>();
        for (int i = 0; i < CITIES; i++) {
            docs.add(city(i));
        }
        assertThat(cities.insertMany(docs).getInsertedIds()).hasSize(CITIES);
        assertThat(cities.countDocuments()).isEqualTo(CITIES);

        List<BsonDocument> viaDriver = cities.find(Filters.and(Filters.in("country", "FR", "US", "BR"), Filters.gte("population", 20_000)))
                .sort(new BsonDocument("population", new BsonInt32(-1)).append("_id", new BsonInt32(1)))
                .projection(new BsonDocument("name", new BsonInt32(1)).append("population", new BsonInt32(1)))
                .batchSize(7).into(new ArrayList<>());
        List<BsonDocument> expected = docs.stream()
                .filter(d -> List.of("FR", "US", "BR").contains(d.getString("country").getValue()) && d.getInt32("population").getValue() >= 20_000)
                .sorted(Comparator.comparingInt((BsonDocument d) -> -d.getInt32("population").getValue()).thenComparingInt(d -> d.getInt32("_id").getValue()))
                .map(d -> new BsonDocument("_id", d.get("_id")).append("name", d.get("name")).append("population", d.get("population")))
                .toList();
        assertThat(viaDriver).hasSizeGreaterThan(7 * 3).isEqualTo(expected);
        try (MongoClient compressing = MongoClients.create(cluster.connectionString(1) + "/?compressors=zlib")) {
            assertThat(compressing.getDatabase("wire").getCollection("cities", BsonDocument.class)
                    .find(Filters.in("country", "FR", "US", "BR")).batchSize(50).into(new ArrayList<>()))
                    .as("OP_COMPRESSED (zlib) both ways").hasSize(CITIES * 3 / COUNTRIES.size());
        }
        assertThat(asJson(viaDriver)).isEqualTo(restFind("{\"find\": \"cities\", \"filter\": {\"country\": {\"$in\": [\"FR\", \"US\", \"BR\"]},"
                + " \"population\": {\"$gte\": 20000}}, \"sort\": {\"population\": -1, \"_id\": 1}, \"projection\": {\"name\": 1, \"population\": 1},"
                + " \"batchSize\": 7}"));
    }

    @Test
    @Order(3)
    void updatesReplaceAndDeleteAgreeWithRest() {
        UpdateResult one = cities.updateOne(Filters.and(Filters.eq("country", "FR"), Filters.eq("_id", 2)), Updates.set("capital", true));
        assertThat(one.getMatchedCount()).isEqualTo(1);
        assertThat(one.getModifiedCount()).isEqualTo(1);

        UpdateResult many = cities.updateMany(Filters.eq("country", "JP"), Updates.inc("population", 1));
        assertThat(many.getMatchedCount()).isEqualTo(CITIES / COUNTRIES.size());
        assertThat(many.getModifiedCount()).isEqualTo(CITIES / COUNTRIES.size());

        UpdateResult replaced = cities.replaceOne(Filters.and(Filters.eq("country", "DE"), Filters.eq("_id", 1)),
                new BsonDocument("_id", new BsonInt32(1)).append("name", new BsonString("Berlin")).append("country", new BsonString("DE"))
                        .append("population", new BsonInt32(3_700_000)));
        assertThat(replaced.getModifiedCount()).isEqualTo(1);

        DeleteResult deleted = cities.deleteMany(Filters.and(Filters.eq("country", "BR"), Filters.lt("population", 30_000)));
        long expectedDeleted = java.util.stream.IntStream.range(0, CITIES).mapToObj(WireProtocolIT::city)
                .filter(d -> d.getString("country").getValue().equals("BR") && d.getInt32("population").getValue() < 30_000).count();
        assertThat(deleted.getDeletedCount()).isEqualTo(expectedDeleted).isPositive();

        assertThat(cities.find(Filters.eq("_id", 1)).first()).isEqualTo(BsonDocument.parse(
                "{_id: 1, name: 'Berlin', country: 'DE', population: 3700000}"));
        assertThat(cities.find(Filters.eq("_id", 2)).first().getBoolean("capital").getValue()).isTrue();
        List<BsonDocument> all = cities.find().sort(new BsonDocument("_id", new BsonInt32(1))).into(new ArrayList<>());
        assertThat(all).hasSize((int) (CITIES - expectedDeleted));
        assertThat(asJson(all)).isEqualTo(restFind("{\"find\": \"cities\", \"sort\": {\"_id\": 1}}"));
    }

    @Test
    @Order(4)
    void countDistinctAggregateAndFindOneAndUpdateAgreeWithRest() {
        long fr = cities.countDocuments(Filters.eq("country", "FR"));
        assertThat(fr).isEqualTo(CITIES / COUNTRIES.size());
        assertThat(fr).isEqualTo(restFind("{\"aggregate\": \"cities\", \"pipeline\": [{\"$match\": {\"country\": \"FR\"}},"
                + " {\"$group\": {\"_id\": 1, \"n\": {\"$sum\": 1}}}], \"cursor\": {}}").getFirst().getNumber("n").longValue());

        List<String> countries = cities.distinct("country", BsonString.class).map(BsonString::getValue).into(new ArrayList<>());
        assertThat(countries).containsExactlyInAnyOrderElementsOf(COUNTRIES);
        assertThat(new BsonArray(countries.stream().sorted().<BsonValue>map(BsonString::new).toList()))
                .isEqualTo(new BsonArray(restOk("wire", "{\"distinct\": \"cities\", \"key\": \"country\"}").getArray("values").stream()
                        .sorted(Comparator.comparing(v -> v.asString().getValue())).toList()));

        String pipeline = "[{\"$match\": {\"population\": {\"$gt\": 10000}}}, {\"$group\": {\"_id\": \"$country\", \"n\": {\"$sum\": 1},"
                + " \"top\": {\"$max\": \"$population\"}}}, {\"$sort\": {\"_id\": 1}}]";
        List<BsonDocument> viaDriver = cities.aggregate(BsonArray.parse(pipeline).stream().map(BsonValue::asDocument).toList())
                .batchSize(2).into(new ArrayList<>());
        assertThat(viaDriver).extracting(d -> d.getString("_id").getValue()).containsExactlyElementsOf(COUNTRIES);
        assertThat(asJson(viaDriver)).isEqualTo(restFind("{\"aggregate\": \"cities\", \"pipeline\": " + pipeline + ", \"cursor\": {}}"));

        BsonDocument after = cities.findOneAndUpdate(Filters.and(Filters.eq("country", "US"), Filters.eq("_id", 4)),
                Updates.inc("population", 5), new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER));
        assertThat(after.getInt32("population").getValue()).isEqualTo(city(4).getInt32("population").getValue() + 5);
        assertThat(asJson(after)).isEqualTo(restFind("{\"find\": \"cities\", \"filter\": {\"_id\": 4}}").getFirst());
    }

    @Test
    @Order(5)
    void bulkWritesReportTheDuplicateKeyAtItsIndex() {
        // the duplicate has the existing document's _id, the shard key, so it lands on the shard holding _id 3
        BsonDocument duplicate = city(3);
        List<WriteModel<BsonDocument>> ordered = List.of(new InsertOneModel<>(city(10_000)), new InsertOneModel<>(duplicate),
                new InsertOneModel<>(city(10_001)));
        assertThatThrownBy(() -> cities.bulkWrite(ordered)).isInstanceOfSatisfying(MongoBulkWriteException.class, e -> {
            assertThat(e.getWriteErrors()).hasSize(1);
            assertThat(e.getWriteErrors().getFirst().getIndex()).isEqualTo(1);
            assertThat(e.getWriteErrors().getFirst().getCode()).isEqualTo(11000);
            assertThat(e.getWriteResult().getInsertedCount()).as("ordered: stops at the error").isEqualTo(1);
        });
        assertThat(cities.countDocuments(Filters.in("_id", 10_000, 10_001))).isEqualTo(1);

        List<WriteModel<BsonDocument>> unordered = List.of(new InsertOneModel<>(city(20_000)), new InsertOneModel<>(duplicate),
                new InsertOneModel<>(city(20_001)));
        assertThatThrownBy(() -> cities.bulkWrite(unordered, new BulkWriteOptions().ordered(false)))
                .isInstanceOfSatisfying(MongoBulkWriteException.class, e -> {
                    assertThat(e.getWriteErrors()).extracting(w -> w.getIndex(), w -> w.getCode()).containsExactly(org.assertj.core.groups.Tuple.tuple(1, 11000));
                    assertThat(e.getWriteResult().getInsertedCount()).as("unordered: the others are written").isEqualTo(2);
                });
        assertThat(cities.countDocuments(Filters.in("_id", 20_000, 20_001))).isEqualTo(2);
    }

    @Test
    @Order(9)
    void clientBulkWriteWritesToSeveralCollectionsInOneCommand() {
        MongoNamespace sharded = new MongoNamespace("wire", "bw_sharded");
        MongoNamespace plain = new MongoNamespace("wire", "bw_plain");
        client.getDatabase("admin").runCommand(new Document("shardCollection", sharded.getFullName()).append("key", new Document("_id", "hashed")));
        List<ClientNamespacedWriteModel> models = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            models.add(ClientNamespacedWriteModel.insertOne(sharded, new Document("_id", i).append("v", i)));
        }
        models.add(ClientNamespacedWriteModel.insertOne(plain, new Document("_id", "a")));
        models.add(ClientNamespacedWriteModel.updateOne(sharded, Filters.eq("_id", 3), Updates.set("v", 300)));
        models.add(ClientNamespacedWriteModel.updateOne(plain, Filters.eq("_id", "b"), Updates.set("n", 1),
                ClientUpdateOneOptions.clientUpdateOneOptions().upsert(true)));
        models.add(ClientNamespacedWriteModel.deleteOne(sharded, Filters.eq("_id", 19)));

        // retryable (the driver sends lsid + txnNumber): every op keeps its own statement id across the runs
        ClientBulkWriteResult result = client.bulkWrite(models, ClientBulkWriteOptions.clientBulkWriteOptions().verboseResults(true));

        assertThat(result.getInsertedCount()).isEqualTo(21);
        assertThat(result.getMatchedCount()).isEqualTo(1);
        assertThat(result.getModifiedCount()).isEqualTo(1);
        assertThat(result.getUpsertedCount()).isEqualTo(1);
        assertThat(result.getDeletedCount()).isEqualTo(1);
        ClientBulkWriteResult.VerboseResults verbose = result.getVerboseResults().orElseThrow();
        assertThat(verbose.getInsertResults()).hasSize(21);
        assertThat(verbose.getUpdateResults().get(22).getUpsertedId()).contains(new BsonString("b"));
        assertThat(verbose.getDeleteResults().get(23).getDeletedCount()).isEqualTo(1);
        MongoCollection<BsonDocument> shardedDocs = client.getDatabase("wire").getCollection("bw_sharded", BsonDocument.class);
        assertThat(shardedDocs.countDocuments()).isEqualTo(19);
        assertThat(shardedDocs.find(Filters.eq("_id", 3)).first().getInt32("v").getValue()).isEqualTo(300);
        assertThat(client.getDatabase("wire").getCollection("bw_plain").countDocuments()).isEqualTo(2);

        // an ordered bulk write stops at the duplicate; what came before it stays written and is reported
        List<ClientNamespacedWriteModel> withDuplicate = List.of(ClientNamespacedWriteModel.insertOne(plain, new Document("_id", "c")),
                ClientNamespacedWriteModel.insertOne(sharded, new Document("_id", 5)),
                ClientNamespacedWriteModel.insertOne(plain, new Document("_id", "d")));
        assertThatThrownBy(() -> client.bulkWrite(withDuplicate)).isInstanceOfSatisfying(ClientBulkWriteException.class, e -> {
            assertThat(e.getWriteErrors()).containsOnlyKeys(1);
            assertThat(e.getWriteErrors().get(1).getCode()).isEqualTo(11000);
            assertThat(e.getPartialResult().orElseThrow().getInsertedCount()).isEqualTo(1);
        });
        assertThat(client.getDatabase("wire").getCollection("bw_plain").countDocuments(Filters.in("_id", "c", "d"))).isEqualTo(1);
    }

    @Test
    @Order(6)
    void createIndexAndListIndexesAgreeWithRest() {
        assertThat(cities.createIndex(Indexes.ascending("name"))).isEqualTo("name_1");
        List<BsonDocument> indexes = cities.listIndexes(BsonDocument.class).into(new ArrayList<>());
        assertThat(indexes).extracting(i -> i.getString("name").getValue()).contains("_id_", "name_1");
        assertThat(asJson(indexes)).isEqualTo(restDrain("wire", "cities", restOk("wire", "{\"listIndexes\": \"cities\"}")));
    }

    /** What a Spring Boot application maps: the id is generated (an ObjectId) on save. */
    record Town(@Id String id, String name, String country, int population) {}

    @Test
    @Order(7)
    void springDataMongoTemplateSavesQueriesAndUpdates() {
        MongoTemplate template = new MongoTemplate(client, "spring");
        Town lyon = template.save(new Town(null, "Lyon", "FR", 522_000));
        template.save(new Town(null, "Nice", "FR", 342_000));
        template.save(new Town(null, "Kyoto", "JP", 1_464_000));
        assertThat(lyon.id()).isNotNull();

        List<Town> french = template.find(Query.query(Criteria.where("country").is("FR")).with(org.springframework.data.domain.Sort.by("name")), Town.class);
        assertThat(french).extracting(Town::name).containsExactly("Lyon", "Nice");

        assertThat(template.updateFirst(Query.query(Criteria.where("name").is("Lyon")), new Update().inc("population", 1), Town.class)
                .getModifiedCount()).isEqualTo(1);
        assertThat(template.findById(lyon.id(), Town.class)).isEqualTo(new Town(lyon.id(), "Lyon", "FR", 522_001));
        assertThat(template.count(new Query(), Town.class)).isEqualTo(3);
    }

    /**
     * mongosh from the npm registry (skipped when npm is missing or the install fails) runs a script: a count, the
     * shard list as {@code db.adminCommand({listShards: 1})}, and {@code sh.status()}, whose report (read from
     * {@code config.version}, finds and aggregations on config collections, {@code balancerStatus} and
     * {@code $shardedDataDistribution}) must count the cities' chunks per shard as {@code config.chunks} holds them.
     * mongosh is installed while the other tests run ({@link #connect}).
     */
    @Test
    @Order(8)
    void mongoshRunsAScript() throws Exception {
        Result install = mongoshInstall.get();
        assumeTrue(install.exit() == 0, install.output());
        Path script = Files.createTempFile("wire-it-", ".js");
        Files.writeString(script, """
                const fr = db.cities.countDocuments({country: "FR"});
                print("FR=" + fr);
                const shards = db.adminCommand({listShards: 1});
                print("SHARDS=" + shards.shards.map(s => s._id).sort().join(","));
                const status = sh.status().value;
                const report = status.databases.find(d => d.database._id === "wire").collections["wire.cities"];
                print("SH_STATUS_CHUNKS=" + report.chunkMetadata.map(m => m.shard + ":" + m.nChunks).join(","));
                """);
        Result result = run(List.of(MONGOSH.toString(), cluster.connectionString(1) + "/wire", "--quiet", "--file", script.toString()),
                Duration.ofMinutes(2));
        System.out.println("[mongosh] " + result.output().replace("\n", "\n[mongosh] "));
        assertThat(result.exit()).as(result.output()).isZero();
        Map<String, Long> perShard = new TreeMap<>();
        chunksOf("wire.cities").forEach(c -> perShard.merge(c.getString("shard").getValue(), 1L, Long::sum));
        assertThat(result.output()).contains("FR=" + cities.countDocuments(Filters.eq("country", "FR")))
                .contains("SHARDS=shard1,shard2")
                .contains("SH_STATUS_CHUNKS=" + perShard.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue()).collect(Collectors.joining(",")));
    }

    private record Result(int exit, String output) {}

    /** Installs mongosh into {@link #MONGOSH_PREFIX} unless it is there; a non-zero exit says why it is not. */
    private static Result installMongosh() {
        try {
            if (Files.isExecutable(MONGOSH)) {
                return new Result(0, "installed before");
            }
            if (run(List.of("npm", "--version"), Duration.ofSeconds(30)).exit() != 0) {
                return new Result(-1, "npm is not installed: mongosh cannot be installed");
            }
            // into a directory of its own, moved into place whole: a run that stops half-way leaves no half-installed mongosh
            Files.createDirectories(MONGOSH_PREFIX.getParent());
            Path staging = Files.createTempDirectory(MONGOSH_PREFIX.getParent(), "installing-");
            Result install = run(List.of("npm", "install", "--no-audit", "--no-fund", "--prefix", staging.toString(), "mongosh@" + MONGOSH_VERSION),
                    Duration.ofMinutes(10));
            try {
                if (install.exit() != 0) {
                    return new Result(-1, "npm install mongosh failed: " + install.output());
                }
                Files.move(staging, MONGOSH_PREFIX, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
                // another run installed it first: that one serves
            } finally {
                FileSystemUtils.deleteRecursively(staging);
            }
            return Files.isExecutable(MONGOSH) ? install : new Result(-1, "npm installed no " + MONGOSH);
        } catch (IOException e) {
            return new Result(-1, "npm install mongosh failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted installing mongosh");
        }
    }

    private static Result run(List<String> command, Duration timeout) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("DO_NOT_TRACK", "1");
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            return new Result(-1, e.getMessage());
        }
        process.getOutputStream().close();
        StringBuilder output = new StringBuilder();
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                output.append(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                output.append(e);
            }
        });
        if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            reader.join();
            return new Result(-1, "timed out after " + timeout + ": " + output);
        }
        reader.join();
        return new Result(process.exitValue(), output.toString().trim());
    }
}
