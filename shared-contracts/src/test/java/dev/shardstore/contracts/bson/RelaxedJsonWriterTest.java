package dev.shardstore.contracts.bson;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shardstore.contracts.keystring.BsonGenerators;
import dev.shardstore.contracts.testing.RandomCases;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** {@link RelaxedJsonWriter} writes exactly the string the BSON library's relaxed writer writes. */
class RelaxedJsonWriterTest {
    private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private static void sameAsTheLibrary(BsonDocument doc) {
        assertThat(RelaxedJsonWriter.write(doc)).isEqualTo(doc.toJson(RELAXED));
    }

    @Test
    void everyUtf16CodeUnitIsEscapedOrNotAsTheLibraryDoes() {
        StringBuilder all = new StringBuilder(65536);
        for (int c = 0; c <= 0xFFFF; c++) {
            all.append((char) c);
        }
        String text = all.toString();
        for (int from = 0; from < text.length(); from += 4096) {
            String piece = text.substring(from, Math.min(text.length(), from + 4096));
            sameAsTheLibrary(new BsonDocument(piece, new BsonString(piece)));
        }
    }

    @Test
    void layoutNumbersAndTypeWrappersAreTheLibrarys() {
        sameAsTheLibrary(new BsonDocument());
        sameAsTheLibrary(new BsonDocument("a", new BsonDocument()).append("b", new BsonArray()).append("c", new BsonArray(List.of(
                new BsonInt32(Integer.MIN_VALUE), new BsonInt64(Long.MAX_VALUE), new BsonDouble(1.0), new BsonDouble(-0.0),
                new BsonDouble(1e21), new BsonDouble(1.0E-7), new BsonDouble(0.1 + 0.2), new BsonDouble(Double.NaN),
                new BsonDouble(Double.NEGATIVE_INFINITY), BsonNull.VALUE, new BsonUndefined(),
                new BsonDecimal128(Decimal128.parse("-0.00")), new BsonDateTime(-1), new BsonDateTime(1_700_000_000_123L),
                new BsonArray(List.of(new BsonDocument("x", new BsonArray()))),
                new BsonTimestamp(-1L), new BsonTimestamp(1_795_792_294, 2), new BsonBinary((byte) 0x80, new byte[] {0, -1, 42}),
                new BsonBinary(new byte[0]), new BsonObjectId(new ObjectId("65f1c0ffee0000000000abcd"))))));
    }

    @Test
    void aRawDocumentIsWrittenAsItsFields() {
        BsonDocument doc = new BsonDocument("_id", new BsonInt32(7)).append("name", new BsonString("Zürich"));
        sameAsTheLibrary(new BsonDocument("cursor", new BsonDocument("firstBatch", new BsonArray(List.<BsonValue>of(
                RawBsonDocument.parse(doc.toJson()), doc)))));
    }

    @Test
    void randomDocumentsOfEveryTypeAreWrittenAsTheLibraryWritesThem() {
        RandomCases.check(2_000, r -> BsonGenerators.document(r, 4), RelaxedJsonWriterTest::sameAsTheLibrary);
    }
}
