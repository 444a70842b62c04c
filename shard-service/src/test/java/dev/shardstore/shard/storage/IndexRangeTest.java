package dev.shardstore.shard.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.namespace.Namespace;
import dev.shardstore.shard.ShardIntegrationTest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * {@link DocumentStore#indexRange}, which chunk migration's clone pages and range deletion's batches read: a range
 * larger than one of its statements ({@code RANGE_FETCH_ROWS}, 1,000 rows) comes back whole and in index order
 * {@code (key, _id)}, across keys shared by many documents, and is cut by rows, by bytes (after the row that reaches
 * the bound) and at the high key.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IndexRangeTest extends ShardIntegrationTest {
    private static final String DB = "idxrange";
    private static final int DOCUMENTS = 2_500;
    /** Keys {@code x} repeat every this many documents, so one key spans documents on both sides of a statement's end. */
    private static final int KEYS = 7;

    @Autowired
    CollectionCatalog catalog;
    @Autowired
    IndexCatalog indexes;
    @Autowired
    DocumentStore store;

    private CollectionInfo collection;
    private IndexWalk.Source byX;
    /** Every document in {@code (x, _id)} order: what a walk of the x index returns. */
    private List<Integer> inIndexOrder;

    @BeforeAll
    void load() {
        run(DB, "{createIndexes: 'c', indexes: [{key: {x: 1}, name: 'x_1'}]}");
        for (int first = 0; first < DOCUMENTS; first += 500) {
            BsonArray batch = new BsonArray();
            for (int i = first; i < first + 500; i++) {
                batch.add(new BsonDocument("_id", new BsonInt32(i)).append("x", new BsonInt32(i % KEYS)));
            }
            BsonDocument reply = run(DB, new BsonDocument("insert", new BsonString("c")).append("documents", batch));
            assertThat(reply.getNumber("n").intValue()).isEqualTo(500);
        }
        collection = catalog.find(new Namespace(DB, "c")).orElseThrow();
        byX = IndexWalk.Source.of(indexes.find(collection, "x_1").orElseThrow());
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < DOCUMENTS; i++) {
            ids.add(i);
        }
        ids.sort(Comparator.<Integer>comparingInt(i -> i % KEYS).thenComparingInt(i -> i));
        inIndexOrder = List.copyOf(ids);
    }

    @Test
    void aRangeOfManyStatementsComesBackWholeInIndexOrder() {
        assertThat(ids(store.indexRange(collection, byX, new byte[0], new byte[0], above(), Integer.MAX_VALUE, Long.MAX_VALUE)))
                .isEqualTo(inIndexOrder);
    }

    @Test
    void aRangeIsCutByRowsAndResumesAfterTheLastOne() {
        List<DocumentStore.IndexedDocument> first = store.indexRange(collection, byX, new byte[0], new byte[0], above(), 1_500, Long.MAX_VALUE);
        assertThat(ids(first)).isEqualTo(inIndexOrder.subList(0, 1_500));
        DocumentStore.IndexedDocument last = first.getLast();
        assertThat(ids(store.indexRange(collection, byX, last.key(), last.document().id(), above(), Integer.MAX_VALUE, Long.MAX_VALUE)))
                .isEqualTo(inIndexOrder.subList(1_500, DOCUMENTS));
    }

    @Test
    void aRangeIsCutAfterTheRowThatReachesItsBytes() {
        List<DocumentStore.IndexedDocument> all = store.indexRange(collection, byX, new byte[0], new byte[0], above(), Integer.MAX_VALUE, Long.MAX_VALUE);
        long bytes = 0;
        for (int i = 0; i <= 1_200; i++) {
            bytes += all.get(i).document().size();
        }
        assertThat(store.indexRange(collection, byX, new byte[0], new byte[0], above(), Integer.MAX_VALUE, bytes))
                .as("the 1,201st row reaches the bound").hasSize(1_201);
        assertThat(store.indexRange(collection, byX, new byte[0], new byte[0], above(), Integer.MAX_VALUE, bytes - 1)).hasSize(1_201);
        assertThat(store.indexRange(collection, byX, new byte[0], new byte[0], above(), Integer.MAX_VALUE, 1)).hasSize(1);
    }

    @Test
    void aRangeStopsBeforeItsHighKey() {
        byte[] keyOfThree = store.indexRange(collection, byX, new byte[0], new byte[0], above(), Integer.MAX_VALUE, Long.MAX_VALUE).stream()
                .filter(row -> new RawBsonDocument(row.document().bson()).getInt32("x").getValue() == 3)
                .findFirst().orElseThrow().key();
        assertThat(ids(store.indexRange(collection, byX, new byte[0], new byte[0], keyOfThree, Integer.MAX_VALUE, Long.MAX_VALUE)))
                .isEqualTo(inIndexOrder.stream().filter(i -> i % KEYS < 3).toList());
    }

    /** A key above every KeyString of the index: its entries start with a type byte below 0xff. */
    private static byte[] above() {
        return new byte[] {(byte) 0xff, (byte) 0xff};
    }

    private static List<Integer> ids(List<DocumentStore.IndexedDocument> rows) {
        return rows.stream().map(row -> new RawBsonDocument(row.document().bson()).getInt32("_id").getValue()).toList();
    }
}
