package dev.shardstore.shard.moveprimary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.infra.EmbeddedInfra;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import dev.shardstore.shard.ShardServiceApplication;
import dev.shardstore.transport.http.CommandClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The new primary's clone ({@code _shardsvrCloneCatalogData}, {@link DatabaseCloner}) from a real second shard process
 * (the old primary, on its own PostgreSQL database) into this one, over real HTTP: create options, secondary indexes
 * and every document (more than one batch) arrive, the documents as {@code fromMigrate} oplog entries; a copy an earlier
 * attempt left is replaced, and cloning again gives the same copy; a collection the donor no longer has is skipped.
 */
class CloneCatalogDataTest extends ShardIntegrationTest {
    private static final String DB = "clone_db";
    private static final int DOCUMENTS = DatabaseCloner.BATCH_SIZE * 2 + 345;

    private static ConfigurableApplicationContext donor;
    private static String donorUrl;
    private static final CommandClient client = new CommandClient(Duration.ofSeconds(2), Duration.ofSeconds(60));

    @BeforeAll
    static void startDonor() {
        Map<String, String> properties = new HashMap<>(EmbeddedInfra.shared().springProperties("shard_it_clone_donor"));
        properties.put("server.port", "0");
        properties.put("shardstore.config-url", ConfigServerStub.instance().url());
        properties.put("shardstore.shard.name", "donor");
        donor = new SpringApplicationBuilder(ShardServiceApplication.class)
                .run(properties.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new));
        donorUrl = "http://127.0.0.1:" + ((WebServerApplicationContext) donor).getWebServer().getPort();
        onDonor("{create: 'withopts', storageEngine: {wiredTiger: {configString: 'x'}}}");
        onDonor("{insert: 'withopts', documents: [{_id: 'only', tags: ['a', 'b']}]}");
        for (int start = 0; start < DOCUMENTS; start += 500) {
            BsonArray batch = new BsonArray();
            for (int i = start; i < Math.min(DOCUMENTS, start + 500); i++) {
                batch.add(new BsonDocument("_id", new BsonInt32(i)).append("x", new BsonInt32(i % 10)).append("u", new BsonInt32(i))
                        .append("tags", new BsonArray(List.of(new BsonString("t" + i % 3), new BsonString("all")))));
            }
            onDonor(new BsonDocument("insert", new BsonString("plain")).append("documents", batch));
        }
        onDonor("{createIndexes: 'plain', indexes: [{key: {u: 1}, name: 'u_unique', unique: true},"
                + " {key: {x: 1, u: -1}, name: 'x_u', partialFilterExpression: {x: {$gt: 2}}}, {key: {tags: 1}, name: 'tags_1', sparse: true}]}");
    }

    @AfterAll
    static void stopDonor() {
        if (donor != null) {
            donor.close();
        }
    }

    private static BsonDocument onDonor(String json) {
        return onDonor(ExtendedJson.parse(json));
    }

    private static BsonDocument onDonor(BsonDocument command) {
        return client.runChecked("donor", donorUrl, DB, command);
    }

    private BsonDocument cloneHere(String... collections) {
        BsonArray names = new BsonArray();
        for (String c : collections) {
            names.add(new BsonString(c));
        }
        return run(DB, new BsonDocument("_shardsvrCloneCatalogData", new BsonInt32(1)).append("from", new BsonString(donorUrl))
                .append("fromShard", new BsonString("donor")).append("collections", names));
    }

    @Test
    void optionsIndexesAndEveryDocumentArriveAndCloningAgainGivesTheSameCopy() {
        insertInto(DB, "plain", "{_id: 'left by an earlier attempt'}");

        BsonDocument reply = cloneHere("plain", "withopts", "gone");
        assertThat(reply.getNumber("ok").intValue()).as(reply.toJson()).isEqualTo(1);
        assertThat(reply.getArray("clonedCollections")).extracting(v -> v.asString().getValue()).containsExactly("plain", "withopts");
        assertThat(reply.getNumber("clonedDocuments").longValue()).isEqualTo(DOCUMENTS + 1);
        assertSameAsTheDonor();
        assertThat(jdbc.sql("SELECT count(*) FROM oplog WHERE ns = ? AND op = 'i' AND from_migrate").param(DB + ".plain")
                .query(Long.class).single()).as("the documents are fromMigrate writes").isEqualTo(DOCUMENTS);

        assertThat(cloneHere("plain", "withopts").getNumber("clonedDocuments").longValue()).isEqualTo(DOCUMENTS + 1);
        assertSameAsTheDonor();
        assertThat(run(DB, "{listCollections: 1, filter: {name: 'gone'}}").getDocument("cursor").getArray("firstBatch")).isEmpty();
    }

    @Test
    void badArgumentsNameTheField() {
        BsonDocument reply = run(DB, "{_shardsvrCloneCatalogData: 1, from: 'http://127.0.0.1:1', fromShard: 'x', collections: [1]}");
        assertThat(reply.getNumber("code").intValue()).isEqualTo(14);
        assertThat(reply.getString("errmsg").getValue()).contains("collections.0");
        assertThat(run(DB, "{_shardsvrCloneCatalogData: 1, fromShard: 'x', collections: []}").getString("errmsg").getValue()).contains("from");
    }

    private void assertSameAsTheDonor() {
        for (String coll : List.of("plain", "withopts")) {
            String listing = "{listCollections: 1, filter: {name: '" + coll + "'}}";
            assertThat(run(DB, listing).getDocument("cursor").getArray("firstBatch").get(0).asDocument().getDocument("options"))
                    .as("%s options", coll)
                    .isEqualTo(onDonor(listing).getDocument("cursor").getArray("firstBatch").get(0).asDocument().getDocument("options"));
            String indexes = "{listIndexes: '" + coll + "'}";
            assertThat(run(DB, indexes).getDocument("cursor").getArray("firstBatch")).as("%s indexes", coll)
                    .isEqualTo(onDonor(indexes).getDocument("cursor").getArray("firstBatch"));
            assertThat(all(coll, this::run)).as("%s documents", coll).isEqualTo(all(coll, (db, c) -> onDonor(c)));
        }
        assertThat(run(DB, "{find: 'plain', filter: {tags: 't1'}, hint: 'tags_1', batchSize: 5000}").getDocument("cursor")
                .getArray("firstBatch")).as("the multikey index answers as the donor's").hasSize(DOCUMENTS / 3 + (DOCUMENTS % 3 > 1 ? 1 : 0));
        BsonDocument duplicate = run(DB, "{insert: 'plain', documents: [{_id: 'dup', u: 7}]}");
        assertThat(duplicate.getArray("writeErrors").get(0).asDocument().getNumber("code").intValue()).as("the unique index holds").isEqualTo(11000);
    }

    /** Every document of {@code coll}, in {@code _id} order, through {@code runner} (find, then getMores). */
    private static List<BsonValue> all(String coll, java.util.function.BiFunction<String, BsonDocument, BsonDocument> runner) {
        BsonDocument cursor = runner.apply(DB, ExtendedJson.parse("{find: '" + coll + "', sort: {_id: 1}, batchSize: 1000}")).getDocument("cursor");
        List<BsonValue> documents = new ArrayList<>(cursor.getArray("firstBatch"));
        while (cursor.getNumber("id").longValue() != 0) {
            cursor = runner.apply(DB, new BsonDocument("getMore", cursor.get("id")).append("collection", new BsonString(coll))
                    .append("batchSize", new BsonInt32(1000))).getDocument("cursor");
            documents.addAll(cursor.getArray("nextBatch"));
        }
        return documents;
    }
}
