package dev.shardstore.contracts.clock;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * One cluster time signing key, a document of {@code admin.system.keys} (mongo/src/mongo/db/s/README.md "Key management"):
 * {@code {_id: NumberLong, purpose: "HMAC", key: BinData(0, <20 bytes>), expiresAt: Timestamp}}. A key signs cluster
 * times below its {@code expiresAt}; keys are never deleted, so old signatures stay verifiable.
 *
 * @param keyId     {@code _id}, the {@code keyId} of signatures made with it
 * @param key       the HMAC-SHA1 secret, 20 bytes (copied in and out)
 * @param expiresAt the cluster time up to which it signs
 */
public record SigningKey(long keyId, byte[] key, BsonTimestamp expiresAt) {
    /** The only purpose of keys: signing cluster times. */
    public static final String PURPOSE = "HMAC";
    /** The length of a key and of an HMAC-SHA1. */
    public static final int LENGTH = 20;

    public SigningKey {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (key.length != LENGTH) {
            throw new IllegalArgumentException("a signing key has " + LENGTH + " bytes, not " + key.length);
        }
        key = key.clone();
    }

    @Override
    public byte[] key() {
        return key.clone();
    }

    /** Whether it signs {@code time}: {@code time < expiresAt} (unsigned). */
    public boolean validFor(BsonTimestamp time) {
        return Long.compareUnsigned(time.getValue(), expiresAt.getValue()) < 0;
    }

    /** Of {@code keys} (oldest first), the one that signs {@code time}: the first valid for it, or null. */
    public static @Nullable SigningKey signing(List<SigningKey> keys, BsonTimestamp time) {
        for (SigningKey key : keys) { // a loop, not a stream: every signed reply asks (issue-10 profile: 3% of the router)
            if (key.validFor(time)) {
                return key;
            }
        }
        return null;
    }

    /** Of {@code keys}, the one with id {@code keyId}, or null. */
    public static @Nullable SigningKey withId(List<SigningKey> keys, long keyId) {
        for (SigningKey key : keys) {
            if (key.keyId() == keyId) {
                return key;
            }
        }
        return null;
    }

    /** The {@code admin.system.keys} document. */
    public BsonDocument toBson() {
        return new BsonDocument("_id", new BsonInt64(keyId)).append("purpose", new BsonString(PURPOSE))
                .append("key", new BsonBinary(key)).append("expiresAt", expiresAt);
    }

    /**
     * The key of an {@code admin.system.keys} document.
     *
     * @throws IllegalArgumentException for a document without those fields or with another purpose
     */
    public static SigningKey fromBson(BsonDocument doc) {
        if (!(doc.isNumber("_id") && doc.isBinary("key") && doc.isTimestamp("expiresAt") && doc.isString("purpose")
                && doc.getString("purpose").getValue().equals(PURPOSE))) {
            throw new IllegalArgumentException("not an HMAC key of admin.system.keys: " + doc.toJson());
        }
        return new SigningKey(doc.getNumber("_id").longValue(), doc.getBinary("key").getData(), doc.getTimestamp("expiresAt"));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SigningKey other && keyId == other.keyId && Arrays.equals(key, other.key) && expiresAt.equals(other.expiresAt);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(keyId);
    }

    @Override
    public String toString() {
        return "SigningKey[" + keyId + ", expiresAt " + expiresAt + "]";
    }
}
