package dev.shardstore.contracts.clock;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonTimestamp;
import org.jspecify.annotations.Nullable;

/**
 * Signs cluster times with HMAC-SHA1 under the keys of {@code admin.system.keys} (mongo/src/mongo/db/s/README.md "Cluster time
 * signing"): the hash is the HMAC of the time's 8 bytes (big-endian {@code seconds << 32 | counter}) under the key
 * that is valid for the time (the one with the earliest {@code expiresAt} above it). Until a key is known it signs
 * with MongoDB's dummy signature (zero hash, key id 0), which a node with keys never accepts for a time ahead of its
 * own. Thread-safe if its {@link Keys} are.
 *
 * <p>The last hash computed is remembered (key id, time, hash): a node signs every reply with its current cluster time
 * and checks the same time coming back from its peers, and that time stays put while nothing is written, so most
 * replies of a read load reuse one HMAC instead of computing it again (an HMAC with a fresh {@code Mac} was ~5% of a
 * router's CPU per routed point read; docs/benchmarks.md).
 */
public final class HmacClusterTimeSigner implements ClusterTimeSigner {
    /** Where the signer finds keys: the config service's table, or a service's cache of it. */
    public interface Keys {
        /** The key that signs {@code time}: the known key with the earliest {@code expiresAt} above it, or null. */
        @Nullable SigningKey forSigning(BsonTimestamp time);

        /** The key with id {@code keyId} (loading it if it may exist), or null when there is none. */
        @Nullable SigningKey byId(long keyId);

        /** The keys a supplier holds, oldest (earliest {@code expiresAt}) first, read anew at each call. */
        static Keys over(Supplier<List<SigningKey>> oldestFirst) {
            return new Keys() {
                @Override
                public @Nullable SigningKey forSigning(BsonTimestamp time) {
                    return SigningKey.signing(oldestFirst.get(), time);
                }

                @Override
                public @Nullable SigningKey byId(long keyId) {
                    return SigningKey.withId(oldestFirst.get(), keyId);
                }
            };
        }
    }

    private static final String ALGORITHM = "HmacSHA1";
    private final Keys keys;
    private final AtomicReference<Computed> last = new AtomicReference<>();

    /** One HMAC: {@code hash} of {@code time} under the key {@code keyId} with bytes {@code key}. */
    private record Computed(long keyId, byte[] key, long time, byte[] hash) {}

    public HmacClusterTimeSigner(Keys keys) {
        this.keys = Objects.requireNonNull(keys, "keys");
    }

    @Override
    public BsonDocument sign(BsonTimestamp time) {
        SigningKey key = keys.forSigning(time);
        return key == null ? UNSIGNED.sign(time)
                : new BsonDocument("hash", new BsonBinary(hash(key, time))).append("keyId", new BsonInt64(key.keyId()));
    }

    /**
     * @throws CommandException TimeProofMismatch (204) for a malformed signature, a hash that does not match, or a key
     *                          that expired before the time; KeyNotFound (211) for an unknown key id
     */
    @Override
    public void verify(BsonTimestamp time, BsonDocument signature) {
        if (!(signature.isBinary("hash") && signature.isNumber("keyId"))) {
            throw new CommandException(ErrorCode.TimeProofMismatch, "$clusterTime.signature must be {hash: BinData, keyId: long}, not "
                    + signature.toJson());
        }
        long keyId = signature.getNumber("keyId").longValue();
        SigningKey key = keys.byId(keyId);
        if (key == null) {
            throw new CommandException(ErrorCode.KeyNotFound, "no signing key with keyId " + keyId + " in admin.system.keys to check $clusterTime "
                    + time + " against");
        }
        if (!key.validFor(time) || !MessageDigest.isEqual(hash(key, time), signature.getBinary("hash").getData())) {
            throw new CommandException(ErrorCode.TimeProofMismatch, "$clusterTime " + time + " does not match its signature (keyId " + keyId + ")");
        }
    }

    /** The HMAC of {@code time} under {@code key}: a fresh array the caller may keep. */
    private byte[] hash(SigningKey key, BsonTimestamp time) {
        Computed seen = last.get();
        if (seen != null && seen.keyId() == key.keyId() && seen.time() == time.getValue() && Arrays.equals(seen.key(), key.key())) {
            return seen.hash().clone();
        }
        byte[] hash = computeHash(key, time);
        last.set(new Computed(key.keyId(), key.key(), time.getValue(), hash.clone()));
        return hash;
    }

    private static byte[] computeHash(SigningKey key, BsonTimestamp time) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key.key(), ALGORITHM));
            return mac.doFinal(ByteBuffer.allocate(Long.BYTES).putLong(time.getValue()).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA1 is part of every JDK", e);
        }
    }
}
