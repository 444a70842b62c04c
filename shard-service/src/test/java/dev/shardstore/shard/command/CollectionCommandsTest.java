package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

class CollectionCommandsTest extends ShardIntegrationTest {

    @Test
    void createListAndDropCollections() {
        assertThat(run("coll1", "{create: 'b', storageEngine: {x: {}}, writeConcern: {w: 1}}")).isEqualTo(ok());
        assertThat(run("coll1", "{create: 'b', storageEngine: {x: {}}}")).isEqualTo(ok());
        assertError(run("coll1", "{create: 'b'}"), 48);
        assertError(run("coll1", "{create: 'c', capped: true, size: 100}"), 238);
        run("coll1", "{insert: 'a', documents: [{_id: 1}]}");

        BsonDocument listed = run("coll1", "{listCollections: 1}");
        List<BsonDocument> entries = listed.getDocument("cursor").getArray("firstBatch").stream().map(BsonValue::asDocument).toList();
        assertThat(listed.getDocument("cursor").getString("ns").getValue()).isEqualTo("coll1.$cmd.listCollections");
        assertThat(entries).extracting(e -> e.getString("name").getValue()).containsExactly("a", "b");
        BsonDocument b = entries.get(1);
        assertThat(b.getString("type").getValue()).isEqualTo("collection");
        assertThat(b.getDocument("options")).isEqualTo(ExtendedJson.parse("{storageEngine: {x: {}}}"));
        assertThat(b.getDocument("info").getBoolean("readOnly").getValue()).isFalse();
        assertThat(b.getDocument("info").getBinary("uuid").getData()).hasSize(16);
        assertThat(run("coll1", "{listCollections: 1, nameOnly: true, filter: {name: 'a'}}")
                .getDocument("cursor").getArray("firstBatch"))
                .containsExactly(ExtendedJson.parse("{name: 'a', type: 'collection'}"));

        assertThat(run("coll1", "{drop: 'a'}")).isEqualTo(ExtendedJson.parse("{nIndexesWas: 1, ns: 'coll1.a', ok: 1.0}"));
        assertThat(run("coll1", "{drop: 'a'}")).isEqualTo(ok());
        assertThat(run("coll1", "{find: 'a'}").getDocument("cursor").getArray("firstBatch")).isEmpty();
        assertThat(jdbc.sql("SELECT count(*) FROM oplog WHERE ns = 'coll1.$cmd' AND op = 'c'").query(Long.class).single())
                .isEqualTo(3); // create b, create a (implicit), drop a
    }

    @Test
    void listCollectionsPagesThroughACursor() {
        for (String name : List.of("c1", "c2", "c3")) {
            run("coll2", "{create: '" + name + "'}");
        }
        BsonDocument first = run("coll2", "{listCollections: 1, cursor: {batchSize: 2}}");
        long id = first.getDocument("cursor").getInt64("id").getValue();
        assertThat(id).isNotZero();
        BsonDocument rest = run("coll2", new BsonDocument("getMore", new BsonInt64(id))
                .append("collection", new BsonString("$cmd.listCollections")));
        assertThat(rest.getDocument("cursor").getArray("nextBatch")).hasSize(1);
        assertThat(rest.getDocument("cursor").getInt64("id").getValue()).isZero();
    }

    @Test
    void dropKillsTheCollectionsCursors() {
        BsonArray docs = new BsonArray();
        for (int i = 0; i < 10; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i)));
        }
        run("coll3", new BsonDocument("insert", new BsonString("d")).append("documents", docs));
        long id = run("coll3", "{find: 'd', batchSize: 2}").getDocument("cursor").getInt64("id").getValue();

        run("coll3", "{drop: 'd'}");

        assertError(run("coll3", new BsonDocument("getMore", new BsonInt64(id)).append("collection", new BsonString("d"))), 43);
    }

    @Test
    void listDatabasesReportsSizesAndDropDatabaseRemovesThem() {
        BsonArray docs = new BsonArray();
        for (int i = 0; i < 2000; i++) {
            docs.add(new BsonDocument("_id", new BsonInt32(i)).append("pad", new BsonString("p".repeat(200))));
        }
        run("sized", new BsonDocument("insert", new BsonString("big")).append("documents", docs));
        run("sized", "{create: 'empty'}");
        run("tiny", "{create: 'nothing'}");

        BsonDocument reply = run("admin", "{listDatabases: 1}");
        BsonDocument sized = database(reply, "sized");
        BsonDocument tiny = database(reply, "tiny");
        assertThat(sized.getInt64("sizeOnDisk").getValue()).isGreaterThan(400_000);
        assertThat(sized.getBoolean("empty").getValue()).isFalse();
        assertThat(tiny.getBoolean("empty").getValue()).isTrue();
        assertThat(sized.getInt64("sizeOnDisk").getValue()).isGreaterThan(tiny.getInt64("sizeOnDisk").getValue());
        long total = reply.getArray("databases").stream().mapToLong(d -> d.asDocument().getInt64("sizeOnDisk").getValue()).sum();
        assertThat(reply.getInt64("totalSize").getValue()).isEqualTo(total);
        assertThat(reply.getInt64("totalSizeMb").getValue()).isEqualTo(total / (1024 * 1024));
        assertThat(run("admin", "{listDatabases: 1, nameOnly: true, filter: {name: 'tiny'}}"))
                .isEqualTo(ExtendedJson.parse("{databases: [{name: 'tiny'}], ok: 1.0}"));
        assertError(run("sized", "{listDatabases: 1}"), 20);

        assertThat(run("sized", "{dropDatabase: 1}")).isEqualTo(ExtendedJson.parse("{dropped: 'sized', ok: 1.0}"));

        assertThat(run("admin", "{listDatabases: 1}").getArray("databases"))
                .noneMatch(d -> d.asDocument().getString("name").getValue().equals("sized"));
        assertThat(run("sized", "{listCollections: 1}").getDocument("cursor").getArray("firstBatch")).isEmpty();
        assertThat(jdbc.sql("SELECT count(*) FROM oplog WHERE ns = 'sized.$cmd' AND o IS NOT NULL").query(Long.class).single())
                .isEqualTo(5); // create big, create empty, drop big, drop empty, dropDatabase
    }

    @Test
    void pingAndShardsvrName() {
        assertThat(run("admin", "{ping: 1}")).isEqualTo(ok());
        assertThat(run("admin", "{_shardsvrName: 1}")).isEqualTo(ExtendedJson.parse("{name: '" + SHARD_NAME + "', ok: 1.0}"));
        assertError(run("admin", "{noSuchCommand: 1}"), 59);
    }

    private static BsonDocument database(BsonDocument reply, String name) {
        return reply.getArray("databases").stream().map(BsonValue::asDocument)
                .filter(d -> d.getString("name").getValue().equals(name)).findFirst().orElseThrow();
    }

    private static BsonDocument ok() {
        return ExtendedJson.parse("{ok: 1.0}");
    }

    private static void assertError(BsonDocument reply, int code) {
        assertThat(reply.getNumber("code").intValue()).as(reply.toJson()).isEqualTo(code);
    }
}
