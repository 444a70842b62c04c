package dev.shardstore.shard.storage;

import dev.shardstore.support.operation.OperationContext;
import static dev.shardstore.shard.TestRouting.chunk;
import static dev.shardstore.shard.TestRouting.collection;
import static dev.shardstore.shard.TestRouting.version;
import static dev.shardstore.shard.TestRouting.versioned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.contracts.sharding.Chunk;
import dev.shardstore.contracts.sharding.KeyRange;
import dev.shardstore.contracts.sharding.ShardKeyPattern;
import dev.shardstore.contracts.sharding.ShardedCollection;
import dev.shardstore.contracts.version.ChunkVersion;
import dev.shardstore.shard.ConfigServerStub;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * What an oplog entry carries for chunk migration's transferMods: the collection's {@code ui}, the documentKey with
 * the shard key in {@code o2} (a delete's from the document it deleted), the shard key's KeyString so that a chunk
 * range is an index range, {@code fromMigrate}; and range reads that return exactly the entries of that range's
 * documents, an update that moves a document across the range's bound included.
 */
class OplogEntriesTest extends ShardIntegrationTest {
    private static final OperationContext TEST = OperationContext.internal("test");
    private static final String DB = "oplogent";

    @Autowired
    OplogReader reader;
    @Autowired
    CollectionCatalog catalog;
    @Autowired
    WriteUnitOfWork units;
    @Autowired
    DocumentStore store;

    @Test
    void writesToAShardedCollectionRecordTheDocumentKeyAndAreReadByChunkRange() {
        ShardedCollection coll = collection(DB + ".cities", "{country: 1, name: 1}");
        ShardKeyPattern key = coll.key();
        List<Chunk> chunks = List.of(
                chunk(coll, "{country: {$minKey: 1}, name: {$minKey: 1}}", "{country: 'FR', name: {$minKey: 1}}", SHARD_NAME, 1, 0),
                chunk(coll, "{country: 'FR', name: {$minKey: 1}}", "{country: 'GB', name: {$minKey: 1}}", SHARD_NAME, 1, 1),
                chunk(coll, "{country: 'GB', name: {$minKey: 1}}", "{country: {$maxKey: 1}, name: {$maxKey: 1}}", SHARD_NAME, 1, 2));
        ConfigServerStub.instance().putRoutingTable(coll, chunks);
        ChunkVersion v = version(coll, 1, 2);
        BsonTimestamp start = reader.allDurable();
        run(DB, "{create: 'cities'}");
        CollectionInfo c = catalog.find(new Namespace(DB, "cities")).orElseThrow();

        run(DB, versioned("""
                {insert: 'cities', documents: [{_id: 1, country: 'FR', name: 'Lyon'}, {_id: 2, country: 'FR', name: 'Paris'},
                 {_id: 3, country: 'GB', name: 'London'}, {_id: 4, country: 'DE', name: 'Berlin'}]}""", v));
        run(DB, versioned("{update: 'cities', updates: [{q: {_id: 2}, u: {$set: {pop: 2}}}]}", v));
        run(DB, versioned("{update: 'cities', updates: [{q: {_id: 1}, u: {$set: {country: 'GB'}}}]}", v));
        run(DB, versioned("{delete: 'cities', deletes: [{q: {name: 'London'}, limit: 1}]}", v));
        run(DB, versioned("{findAndModify: 'cities', query: {_id: 4}, remove: true}", v));
        // unversioned, but this shard has the collection's filtering metadata cached from the commands above
        run(DB, "{insert: 'cities', documents: [{_id: 5, country: 'FR', name: 'Nice'}]}");

        List<OplogEntry> all = reader.read(c.uuid(), start, null, 100).entries();
        assertThat(all).extracting(e -> e.op().code() + " " + (e.o2() == null ? e.o().toJson() : e.o2().toJson())).containsExactly(
                "c {\"create\": \"cities\"}",
                "i {\"country\": \"FR\", \"name\": \"Lyon\", \"_id\": 1}",
                "i {\"country\": \"FR\", \"name\": \"Paris\", \"_id\": 2}",
                "i {\"country\": \"GB\", \"name\": \"London\", \"_id\": 3}",
                "i {\"country\": \"DE\", \"name\": \"Berlin\", \"_id\": 4}",
                "u {\"country\": \"FR\", \"name\": \"Paris\", \"_id\": 2}",
                "u {\"country\": \"GB\", \"name\": \"Lyon\", \"_id\": 1}",
                "d {\"country\": \"GB\", \"name\": \"London\", \"_id\": 3}",
                "d {\"country\": \"DE\", \"name\": \"Berlin\", \"_id\": 4}",
                "i {\"country\": \"FR\", \"name\": \"Nice\", \"_id\": 5}");
        assertThat(all).allSatisfy(e -> {
            assertThat(e.ui()).isEqualTo(c.uuid());
            assertThat(e.fromMigrate()).isFalse();
        });
        for (OplogEntry e : all.subList(1, all.size())) {
            assertThat(e.shardKey()).as(e.toString()).isEqualTo(key.keyOf(e.o2()));
            assertThat(e.o() == null).isEqualTo(e.op() == OplogEntry.Op.DELETE);
        }
        OplogEntry moved = all.get(6);
        assertThat(moved.o()).isEqualTo(ExtendedJson.parse("{_id: 1, country: 'GB', name: 'Lyon'}"));
        assertThat(moved.previousShardKey()).isEqualTo(key.keyOf(ExtendedJson.parse("{country: 'FR', name: 'Lyon'}")));
        assertThat(all.get(5).previousShardKey()).as("the key did not change").isNull();

        assertThat(idsAndOps(c, start, chunks.get(0), key)).containsExactly("i 4", "d 4");
        assertThat(idsAndOps(c, start, chunks.get(1), key)).as("Lyon left the range with its update")
                .containsExactly("i 1", "i 2", "u 2", "u 1", "i 5");
        assertThat(idsAndOps(c, start, chunks.get(2), key)).as("Lyon entered the range with its update")
                .containsExactly("i 3", "u 1", "d 3");

        // a migration's write is read, but is no client change to count
        StoredDocument migrated = StoredDocument.of(ExtendedJson.parse("{_id: 6, country: 'FR', name: 'Lille'}"));
        units.writeFromMigrate(TEST, work -> store.insert(work, c, List.of(migrated)));
        assertThat(idsAndOps(c, start, chunks.get(1), key)).endsWith("i 5", "i 6");
        OplogEntry last = reader.read(c.uuid(), start, null, 100).entries().getLast();
        assertThat(last.fromMigrate()).isTrue();
        assertThat(last.o()).as("a fromMigrate entry carries no document").isNull();
        assertThat(last.shardKey()).isEqualTo(key.keyOf(migrated.decode()));
        assertThat(chunks).extracting(chunk -> reader.countClientChanges(c.uuid(), start, KeyRange.of(key, chunk.range()), 100))
                .containsExactly(2, 5, 3);
        assertThat(reader.countClientChanges(c.uuid(), start, KeyRange.of(key, chunks.get(1).range()), 2)).as("at most the limit")
                .isEqualTo(2);
        assertThat(reader.countClientChanges(c.uuid(), reader.allDurable(), KeyRange.of(key, chunks.get(1).range()), 100)).isZero();
    }

    @Test
    void anUnshardedCollectionRecordsTheIdAloneAndMigrationWritesAreMarked() {
        CollectionInfo c = catalog.create(TEST, new Namespace(DB, "plain"), new BsonDocument()).collection();
        BsonTimestamp start = reader.allDurable();
        run(DB, "{insert: 'plain', documents: [{_id: 1, country: 'FR'}]}");
        StoredDocument cloned = StoredDocument.of(ExtendedJson.parse("{_id: 2, country: 'GB'}"));
        units.writeFromMigrate(TEST, work -> store.insert(work, c, List.of(cloned)));
        units.writeFromMigrate(TEST, work -> store.delete(work, c, List.of(cloned)));

        List<OplogEntry> all = reader.read(c.uuid(), start, null, 100).entries();
        assertThat(all).extracting(e -> e.op().code() + " " + e.o2().toJson() + " " + e.fromMigrate()).containsExactly(
                "i {\"_id\": 1} false", "i {\"_id\": 2} true", "d {\"_id\": 2} true");
        assertThat(all).allSatisfy(e -> assertThat(e.shardKey()).isNull());
        assertThat(reader.read(c.uuid(), start, null, 2).resumeAfter()).as("a full batch resumes after its last entry")
                .isEqualTo(all.get(1).ts());
    }

    /** The entries of {@code chunk}'s range, as {@code "<op> <_id>"}. */
    private List<String> idsAndOps(CollectionInfo c, BsonTimestamp start, Chunk chunk, ShardKeyPattern key) {
        return reader.read(c.uuid(), start, KeyRange.of(key, chunk.range()), 100).entries().stream()
                .map(e -> e.op().code() + " " + e.o2().get("_id").asNumber().intValue())
                .toList();
    }
}
