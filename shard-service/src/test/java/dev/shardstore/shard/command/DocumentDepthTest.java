package dev.shardstore.shard.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.bson.BsonBytes;
import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.http.InternalApi;
import dev.shardstore.shard.ShardIntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * MongoDB's nesting limits on the shard (hardening issue, item 5): a stored document nests at most 100 levels
 * (the top-level document is level 1, each object or array adds one), so an insert, an update, an upsert or a
 * findAndModify producing a deeper one is refused with {@code Overflow} (15) and writes nothing; and the internal
 * BSON endpoint refuses a command nested past 200 levels (or not BSON at all) with an error reply, before anything
 * recursive reads it.
 */
class DocumentDepthTest extends ShardIntegrationTest {
    private static final String DB = "depth";

    /** {@code {_id: id, a: {a: ... {a: 1}}}} nesting {@code depth} levels in all. */
    private static BsonDocument nested(int id, int depth) {
        BsonValue value = new BsonInt32(1);
        for (int level = depth; level > 1; level--) {
            value = new BsonDocument("a", value);
        }
        return new BsonDocument("_id", new BsonInt32(id)).append("a", value);
    }

    /** The dotted path {@code a.a...a} of {@code components} components: setting it to 1 nests that many levels. */
    private static String path(int components) {
        return String.join(".", java.util.Collections.nCopies(components, "a"));
    }

    private BsonDocument insert(String collection, BsonDocument... documents) {
        return run(DB, new BsonDocument("insert", new BsonString(collection)).append("documents", new BsonArray(List.of(documents))));
    }

    private static void assertOverflowWriteError(BsonDocument reply, int index) {
        assertOverflowWriteError(reply, index, "maximum nesting depth of 100");
    }

    private static void assertOverflowWriteError(BsonDocument reply, int index, String message) {
        BsonDocument error = reply.getArray("writeErrors").get(0).asDocument();
        assertThat(error.getInt32("index").getValue()).isEqualTo(index);
        assertThat(error.getInt32("code").getValue()).as(error.toJson()).isEqualTo(15);
        assertThat(error.getString("errmsg").getValue()).contains(message);
    }

    @Test
    void aHundredLevelDocumentIsStoredAndAHundredAndOneLevelOneIsAWriteError() {
        BsonDocument reply = insert("inserts", nested(1, 100), nested(2, 101), nested(3, 3));

        assertThat(reply.getInt32("n").getValue()).isEqualTo(1);
        assertOverflowWriteError(reply, 1);
        assertThat(documentsOf(DB, "inserts")).containsExactly(nested(1, 100));

        BsonDocument unordered = run(DB, new BsonDocument("insert", new BsonString("inserts")).append("ordered", org.bson.BsonBoolean.FALSE)
                .append("documents", new BsonArray(List.of(nested(2, 101), nested(3, 3)))));
        assertThat(unordered.getInt32("n").getValue()).isEqualTo(1);
        assertOverflowWriteError(unordered, 0);
        assertThat(documentsOf(DB, "inserts")).containsExactly(nested(1, 100), nested(3, 3));
    }

    @Test
    void anUpdateWhoseResultNestsTooDeepIsAWriteErrorAndChangesNothing() {
        insert("updates", new BsonDocument("_id", new BsonInt32(1)));

        BsonDocument fits = run(DB, "{update: 'updates', updates: [{q: {_id: 1}, u: {$set: {'" + path(100) + "': 1}}}]}");
        assertThat(fits.getInt32("nModified").getValue()).isEqualTo(1);
        assertThat(documentsOf(DB, "updates")).containsExactly(nested(1, 100));

        BsonDocument deeper = run(DB, "{update: 'updates', updates: [{q: {_id: 1}, u: {$set: {'b." + path(100) + "': 1}}}]}");
        assertThat(deeper.getInt32("nModified").getValue()).isZero();
        assertOverflowWriteError(deeper, 0);
        // a path longer than any document can be deep is refused before the update walks it
        BsonDocument longPath = run(DB, "{update: 'updates', updates: [{q: {_id: 1}, u: {$set: {'" + path(5000) + "': 1}}}]}");
        assertOverflowWriteError(longPath, 0, "5000 components");
        BsonDocument upsert = run(DB, "{update: 'updates', updates: [{q: {_id: 2}, u: {$set: {'" + path(101) + "': 1}}, upsert: true}]}");
        assertOverflowWriteError(upsert, 0);
        assertThat(documentsOf(DB, "updates")).containsExactly(nested(1, 100));
    }

    @Test
    void aFindAndModifyWhoseResultNestsTooDeepIsRefused() {
        insert("fam", new BsonDocument("_id", new BsonInt32(1)));

        BsonDocument reply = run(DB, "{findAndModify: 'fam', query: {_id: 1}, update: {$set: {'" + path(101) + "': 1}}}");

        assertThat(reply.getNumber("ok").intValue()).isZero();
        assertThat(reply.getInt32("code").getValue()).as(reply.toJson()).isEqualTo(15);
        assertThat(documentsOf(DB, "fam")).containsExactly(new BsonDocument("_id", new BsonInt32(1)));
    }

    @Test
    void theInternalEndpointRefusesACommandNestedPastTheLimitWithAnErrorReply() throws Exception {
        // {find: "c", filter: {a: {a: ...}}}: 5,000 levels, written byte by byte (the library's encoder would recurse)
        BsonDocument deep = bsonReply(findWithFilterNested(5000));
        assertThat(deep.getNumber("ok").intValue()).isZero();
        assertThat(deep.getInt32("code").getValue()).isEqualTo(15);
        assertThat(deep.getString("errmsg").getValue()).contains("maximum nesting depth of 200");

        BsonDocument fits = bsonReply(findWithFilterNested(200));
        assertThat(fits.getNumber("ok").intValue()).as(fits.toJson()).isEqualTo(1);

        BsonDocument garbage = bsonReply(new byte[] {7, 0, 0, 0, 1, 2, 3});
        assertThat(garbage.getInt32("code").getValue()).isEqualTo(9);
    }

    /** Posts raw bytes to the internal endpoint; the reply must be a BSON document with HTTP 200. */
    private BsonDocument bsonReply(byte[] body) throws Exception {
        HttpResponse<byte[]> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + InternalApi.commandPath(DB)))
                        .header("Content-Type", InternalApi.MEDIA_TYPE_BSON).header("Accept", InternalApi.MEDIA_TYPE_BSON)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith(InternalApi.MEDIA_TYPE_BSON));
        return BsonBytes.decode(response.body());
    }

    /**
     * {@code {find: "c", filter: <f>}} where {@code f} is {@code {a: {a: ... {}}}} so that the whole command nests
     * {@code depth} levels; encoded directly, one level at a time from the inside out.
     */
    private static byte[] findWithFilterNested(int depth) {
        byte[] inner = {5, 0, 0, 0, 0};
        for (int level = depth - 1; level > 1; level--) {
            inner = element(inner, "a");
        }
        byte[] find = {0x02, 'f', 'i', 'n', 'd', 0, 2, 0, 0, 0, 'c', 0};
        byte[] filter = field("filter", inner);
        ByteBuffer doc = ByteBuffer.allocate(4 + find.length + filter.length + 1).order(ByteOrder.LITTLE_ENDIAN);
        doc.putInt(doc.capacity()).put(find).put(filter).put((byte) 0);
        return doc.array();
    }

    /** The document {@code {name: value}} around an embedded document's bytes. */
    private static byte[] element(byte[] value, String name) {
        byte[] field = field(name, value);
        ByteBuffer doc = ByteBuffer.allocate(4 + field.length + 1).order(ByteOrder.LITTLE_ENDIAN);
        doc.putInt(doc.capacity()).put(field).put((byte) 0);
        return doc.array();
    }

    /** One embedded-document element: type 0x03, the name, the document's bytes. */
    private static byte[] field(String name, byte[] value) {
        byte[] key = name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(1 + key.length + 1 + value.length).put((byte) 0x03).put(key).put((byte) 0).put(value).array();
    }
}
