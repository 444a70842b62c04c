package dev.shardstore.contracts.bson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.keystring.BsonGenerators;
import dev.shardstore.contracts.testing.RandomCases;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/** {@link BsonValidation} against the BSON library's own encoder and decoder. */
class BsonValidationTest {
    /** A random document the library can encode (names with a NUL cannot be), with its encoding. */
    private record Encoded(BsonDocument doc, byte[] bytes) {
        @Override
        public String toString() {
            return doc.toJson();
        }
    }

    /** Damaged bytes, printed in hex when a case fails. */
    private record Corrupted(byte[] bytes) {
        @Override
        public String toString() {
            return java.util.HexFormat.of().formatHex(bytes);
        }
    }

    private static Encoded encodable(Random random) {
        while (true) {
            BsonDocument doc = BsonGenerators.document(random, 4);
            try {
                return new Encoded(doc, BsonBytes.encode(doc));
            } catch (RuntimeException e) {
                // a NUL in a name: draw again
            }
        }
    }

    private static int depth(BsonValue value) {
        BsonValue inner = value instanceof BsonJavaScriptWithScope code ? code.getScope() : value;
        if (inner.isDocument()) {
            return 1 + inner.asDocument().values().stream().mapToInt(BsonValidationTest::depth).max().orElse(0);
        }
        if (inner.isArray()) {
            return 1 + inner.asArray().stream().mapToInt(BsonValidationTest::depth).max().orElse(0);
        }
        return 0;
    }

    private static void validate(byte[] bytes, int maxDepth) {
        BsonValidation.validate(ByteBuffer.wrap(bytes), 1, maxDepth);
    }

    @Test
    void everyDocumentTheLibraryEncodesIsValidToItsExactDepth() {
        RandomCases.check(3000, BsonValidationTest::encodable, e -> {
            int depth = depth(e.doc());
            validate(e.bytes(), depth);
            if (depth > 1) {
                assertThatThrownBy(() -> validate(e.bytes(), depth - 1)).isInstanceOfSatisfying(
                        BsonValidation.InvalidBsonException.class, x -> assertThat(x.tooDeep()).isTrue());
            }
        });
    }

    @Test
    void whateverItAcceptsAfterCorruptionTheLibraryDecodes() {
        RandomCases.check(20_000, random -> {
            byte[] bytes = encodable(random).bytes().clone();
            for (int n = 1 + random.nextInt(3); n > 0; n--) {
                bytes[random.nextInt(bytes.length)] = (byte) (random.nextBoolean() ? random.nextInt(256) : random.nextInt(3));
            }
            return new Corrupted(bytes);
        }, corrupted -> {
            byte[] bytes = corrupted.bytes();
            boolean accepted;
            try {
                validate(bytes, 200);
                accepted = true;
            } catch (BsonValidation.InvalidBsonException e) {
                accepted = false;
            }
            if (accepted) { // decodes without an exception (strings are not checked for UTF-8, as the decoder does not)
                BsonBytes.decode(bytes);
            }
        });
    }

    @Test
    void eachKindOfDamageIsNamed() {
        byte[] good = BsonBytes.encode(new BsonDocument("s", new org.bson.BsonString("xy")).append("t", org.bson.BsonBoolean.TRUE)
                .append("d", new BsonDocument("a", new BsonInt32(1))));
        validate(good, 200);
        assertRefused(with(good, 0, 99), "is not the");
        assertRefused(with(good, good.length - 1, 1), "does not end with a NUL");
        assertRefused(with(good, 4, 0x7A), "unknown element type 122");
        assertRefused(with(good, 4 + 3 + 4 + 2, 'z'), "not NUL-terminated");
        assertRefused(with(good, 4 + 3 + 4 + 3 + 3, 2), "a boolean is 2");
        int nested = 4 + 3 + 4 + 3 + 3 + 1 + 3;
        assertRefused(with(good, nested, 60), "does not fit");
        assertRefused(Arrays.copyOf(good, 4), "at least 5 bytes");
        byte[] unterminatedName = {8, 0, 0, 0, 0x10, 'a', 'b', 0};
        assertRefused(unterminatedName, "no terminating NUL");
    }

    @Test
    void depthCountsArraysAndTheCallersStartingLevel() {
        byte[] bytes = BsonBytes.encode(new BsonDocument("a", new BsonArray(java.util.List.of(new BsonDocument()))));
        validate(bytes, 3);
        assertThatThrownBy(() -> BsonValidation.validate(ByteBuffer.wrap(bytes), 2, 3)).hasMessageContaining("deeper than 3");
    }

    private static byte[] with(byte[] bytes, int at, int value) {
        byte[] copy = bytes.clone();
        if (at == 0) {
            ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value);
        } else {
            copy[at] = (byte) value;
        }
        return copy;
    }

    private static void assertRefused(byte[] bytes, String message) {
        assertThatThrownBy(() -> validate(bytes, 200)).isInstanceOfSatisfying(BsonValidation.InvalidBsonException.class, e -> {
            assertThat(e.tooDeep()).isFalse();
            assertThat(e.getMessage()).contains(message);
        });
    }
}
