package dev.shardstore.contracts.bson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.nio.ByteBuffer;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/**
 * MongoDB's depth and size limits: the Extended JSON parser refuses nesting past 200 levels (and text past the
 * message size) before the recursive decoder can overflow, and the iterative depth checks count levels as MongoDB
 * does (top-level document = 1, each object or array adds one), on decoded documents and on BSON bytes alike.
 */
class BsonLimitsTest {
    /** {@code {a: {a: ... {a: 1}}}} with {@code depth} levels of objects, as JSON text. */
    static String nestedObjects(int depth) {
        return "{\"a\": ".repeat(depth - 1) + "{\"a\": 1}" + "}".repeat(depth - 1);
    }

    /** {@code {a: [[...[1]...]]}}: one document and {@code depth - 1} levels of arrays. */
    static String nestedArrays(int depth) {
        return "{\"a\": " + "[".repeat(depth - 1) + "1" + "]".repeat(depth - 1) + "}";
    }

    /** {@code {a: {a: ... {a: 1}}}} with {@code depth} levels, built without the parser. */
    private static BsonDocument objects(int depth) {
        BsonDocument doc = new BsonDocument("a", new BsonInt32(1));
        for (int i = 1; i < depth; i++) {
            doc = new BsonDocument("a", doc);
        }
        return doc;
    }

    @Test
    void theParserAcceptsTwoHundredLevelsAndRefusesTheNextOneAsOverflow() {
        assertThat(ExtendedJson.parse(nestedObjects(200))).isEqualTo(objects(200));
        assertThatCode(() -> ExtendedJson.parse(nestedArrays(200))).doesNotThrowAnyException();

        for (String json : new String[] {nestedObjects(201), nestedArrays(201)}) {
            assertThatThrownBy(() -> ExtendedJson.parse(json)).isInstanceOfSatisfying(CommandException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.Overflow);
                assertThat(e.getMessage()).contains("maximum nesting depth of 200").contains("line 1");
            });
        }
    }

    @Test
    void nestingThousandsOfLevelsDeepIsOverflowNotAStackOverflow() {
        String deepFilter = "{\"find\": \"c\", \"filter\": " + "{\"$and\": [".repeat(5000) + "{}" + "]}".repeat(5000) + "}";
        String unclosed = "[".repeat(100_000);
        for (String json : new String[] {nestedObjects(50_000), deepFilter, "{\"a\": " + unclosed}) {
            assertThatThrownBy(() -> ExtendedJson.parse(json)).isInstanceOfSatisfying(CommandException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.Overflow));
        }
    }

    @Test
    void namesAndRegularExpressionsWithANulCharacterAreFailedToParse() {
        for (String json : new String[] {"{\"a\\u0000b\": 1}", "{\"x\": {\"a\\u0000\": 1}}",
                "{\"r\": {\"$regularExpression\": {\"pattern\": \"a\\u0000\", \"options\": \"\"}}}",
                "{\"r\": {\"$regex\": \"a\", \"$options\": \"i\\u0000\"}}"}) {
            assertThatThrownBy(() -> ExtendedJson.parse(json)).as(json).isInstanceOfSatisfying(CommandException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.FailedToParse);
                assertThat(e.getMessage()).contains("NUL");
            });
        }
        // a NUL inside a string value is fine: BSON strings carry their length
        assertThat(BsonBytes.decode(BsonBytes.encode(ExtendedJson.parse("{\"a\": \"x\\u0000y\"}"))).getString("a").getValue()).isEqualTo("x\u0000y");
    }

    @Test
    void textLongerThanTheMessageLimitIsRefusedBeforeParsing() {
        String huge = "{\"a\": \"" + "x".repeat(BsonLimits.MAX_MESSAGE_SIZE) + "\"}";
        assertThatThrownBy(() -> ExtendedJson.parse(huge)).isInstanceOfSatisfying(CommandException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.BSONObjectTooLarge);
            assertThat(e.getMessage()).contains(String.valueOf(BsonLimits.MAX_MESSAGE_SIZE));
        });
    }

    @Test
    void theDocumentCheckCountsObjectsAndArraysAndNamesThePath() {
        BsonDocument hundred = objects(100);
        assertThatCode(() -> BsonLimits.checkDepth(hundred, 100, "document")).doesNotThrowAnyException();
        assertThatThrownBy(() -> BsonLimits.checkDepth(objects(101), 100, "document to insert"))
                .isInstanceOfSatisfying(CommandException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.Overflow);
                    assertThat(e.getMessage()).contains("document to insert").contains("a.a.a").contains("100");
                });

        BsonDocument arrays = ExtendedJson.parse(nestedArrays(101));
        assertThatCode(() -> BsonLimits.checkDepth(ExtendedJson.parse(nestedArrays(100)), 100, "d")).doesNotThrowAnyException();
        assertThatThrownBy(() -> BsonLimits.checkDepth(arrays, 100, "d")).hasMessageContaining("a.0.0.0");
        assertThatThrownBy(() -> BsonLimits.checkDepth(new BsonDocument("code",
                new BsonJavaScriptWithScope("f()", objects(100))), 100, "d")).isInstanceOf(CommandException.class);
    }

    @Test
    void theByteCheckAgreesWithTheDocumentCheckAtEveryDepthAroundTheLimit() {
        for (int depth = 95; depth <= 105; depth++) {
            for (BsonDocument doc : new BsonDocument[] {objects(depth), ExtendedJson.parse(nestedArrays(depth))}) {
                byte[] bytes = BsonBytes.encode(doc);
                boolean fits = depth <= 100;
                if (fits) {
                    assertThatCode(() -> BsonLimits.checkDepth(ByteBuffer.wrap(bytes), 100, "d")).doesNotThrowAnyException();
                    assertThatCode(() -> BsonLimits.checkDepth(new RawBsonDocument(bytes), 100, "d")).doesNotThrowAnyException();
                } else {
                    assertThatThrownBy(() -> BsonLimits.checkDepth(ByteBuffer.wrap(bytes), 100, "d")).isInstanceOf(CommandException.class);
                    assertThatThrownBy(() -> BsonLimits.checkDepth(new RawBsonDocument(bytes), 100, "d")).isInstanceOf(CommandException.class);
                }
            }
        }
    }

    @Test
    void aRawDocumentNestedInADecodedOneCountsFromItsOwnLevel() {
        RawBsonDocument inner = new RawBsonDocument(BsonBytes.encode(objects(50)));
        BsonDocument fits = new BsonDocument("x", new BsonDocument("y", inner));
        assertThatCode(() -> BsonLimits.checkDepth(fits, 52, "d")).doesNotThrowAnyException();
        assertThatThrownBy(() -> BsonLimits.checkDepth(fits, 51, "d")).hasMessageContaining("x.y");
    }

    @Test
    void theByteCheckWalksDeepBsonWithoutRecursion() {
        // 20,000 levels of BSON are built without the recursive encoder: {a: {a: ...}} written byte by byte
        byte[] bytes = deepBson(20_000);
        assertThatThrownBy(() -> BsonLimits.checkDepth(ByteBuffer.wrap(bytes), 200, "command"))
                .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.Overflow));
    }

    /** {@code {a: {a: ... {}}}} with {@code depth} levels, encoded directly: each level is int32 size, 0x03 'a' 0, inner, 0. */
    static byte[] deepBson(int depth) {
        int innermost = 5;
        int size = innermost + (depth - 1) * 8;
        ByteBuffer out = ByteBuffer.allocate(size).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int level = 0; level < depth - 1; level++) {
            out.putInt(size - level * 8).put((byte) 0x03).put((byte) 'a').put((byte) 0);
        }
        out.putInt(innermost).put((byte) 0);
        for (int level = 0; level < depth - 1; level++) {
            out.put((byte) 0);
        }
        return out.array();
    }
}
