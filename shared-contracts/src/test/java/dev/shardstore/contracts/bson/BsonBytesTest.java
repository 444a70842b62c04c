package dev.shardstore.contracts.bson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonSerializationException;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/**
 * {@link BsonBytes#decodeKeepingBatches}: the decoded reply, with only the cursor batches' documents left as bytes; the
 * byte-level reading of a document's {@code _id} ({@link BsonBytes#startsWithId}, {@link BsonBytes#idDocument}).
 */
class BsonBytesTest {
    private static final BsonDocument DOC = new BsonDocument("_id", new BsonInt32(1)).append("a", new BsonDocument("b", new BsonString("x")));

    @Test
    void onlyTheCursorBatchesStayRawAndEverythingElseIsDecodedAndMutable() {
        BsonDocument reply = Replies.cursor(true, List.of(DOC, DOC), 0, "db.c")
                .append("other", new BsonDocument("firstBatch", new BsonArray(List.of(DOC))))
                .append("writeErrors", new BsonArray(List.of(new BsonDocument("index", new BsonInt32(0)))));

        BsonDocument kept = BsonBytes.decodeKeepingBatches(ByteBuffer.wrap(BsonBytes.encode(reply)));

        assertThat(kept).isEqualTo(reply).isEqualTo(BsonBytes.decode(BsonBytes.encode(reply)));
        assertThat(BsonBytes.encode(kept)).isEqualTo(BsonBytes.encode(reply));
        assertThat(kept.getDocument("cursor").getArray("firstBatch")).allSatisfy(d -> assertThat(d).isInstanceOf(RawBsonDocument.class));
        assertThat(kept.getDocument("other").getArray("firstBatch").get(0)).as("a batch outside cursor is decoded")
                .isNotInstanceOf(RawBsonDocument.class);
        kept.getArray("writeErrors").get(0).asDocument().put("index", new BsonInt32(3));
        kept.getDocument("cursor").remove("ns");
    }

    @Test
    void bytesThatAreNotOneDocumentAreRefused() {
        byte[] bytes = BsonBytes.encode(Replies.cursor(true, List.of(DOC), 0, "db.c"));

        assertThatThrownBy(() -> BsonBytes.decodeKeepingBatches(ByteBuffer.wrap(Arrays.copyOf(bytes, bytes.length - 9))))
                .isInstanceOf(BsonSerializationException.class);
    }

    @Test
    void theIdDocumentIsCopiedFromTheFirstElementForEveryTypeOfId() {
        dev.shardstore.contracts.testing.RandomCases.check(3000, random -> dev.shardstore.contracts.keystring.BsonGenerators.value(random, 2), id -> {
            BsonDocument doc = new BsonDocument("_id", id).append("x", new BsonInt32(1));
            byte[] bytes;
            try {
                bytes = BsonBytes.encode(doc);
            } catch (RuntimeException e) {
                return; // a value the library cannot encode (a NUL in a name)
            }
            assertThat(BsonBytes.startsWithId(new RawBsonDocument(bytes))).isTrue();
            byte[] key = BsonBytes.idDocument(bytes);
            if (id instanceof org.bson.BsonJavaScriptWithScope) {
                assertThat(key).isNull();
            } else {
                assertThat(key).isEqualTo(BsonBytes.encode(new BsonDocument("_id", id)));
            }
        });
        byte[] idSecond = BsonBytes.encode(new BsonDocument("a", new BsonInt32(1)).append("_id", new BsonInt32(2)));
        assertThat(BsonBytes.idDocument(idSecond)).isNull();
        assertThat(BsonBytes.startsWithId(new RawBsonDocument(idSecond))).isFalse();
        assertThat(BsonBytes.startsWithId(new RawBsonDocument(BsonBytes.encode(new BsonDocument("_idx", new BsonInt32(1)))))).isFalse();
        assertThat(BsonBytes.idDocument(BsonBytes.encode(new BsonDocument()))).isNull();
    }
}
