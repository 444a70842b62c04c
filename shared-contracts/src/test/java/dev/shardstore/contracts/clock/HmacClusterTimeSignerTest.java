package dev.shardstore.contracts.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class HmacClusterTimeSignerTest {
    private final List<SigningKey> keys = new ArrayList<>();
    private final HmacClusterTimeSigner signer = new HmacClusterTimeSigner(HmacClusterTimeSigner.Keys.over(() -> keys));

    @Test
    void signsWithTheKeyValidForTheTimeAndKeepsCheckingOldSignaturesAfterRotation() {
        keys.add(key(1, 1000));
        BsonTimestamp early = new BsonTimestamp(500, 1);
        BsonDocument earlySignature = signer.sign(early);
        assertThat(earlySignature.getInt64("keyId").getValue()).isEqualTo(1);
        assertThat(earlySignature.getBinary("hash").getData()).hasSize(20);
        signer.verify(early, earlySignature);

        keys.add(key(2, 2000)); // rotated: key 1 expires at 1000
        BsonTimestamp late = new BsonTimestamp(1500, 1);
        assertThat(signer.sign(late).getInt64("keyId").getValue()).isEqualTo(2);
        signer.verify(late, signer.sign(late));
        signer.verify(early, earlySignature); // never deleted, still verifies

        BsonDocument expiredKeyUsed = new BsonDocument("hash", earlySignature.getBinary("hash")).append("keyId", new BsonInt64(1));
        assertRefused(() -> signer.verify(late, expiredKeyUsed), ErrorCode.TimeProofMismatch);
    }

    @Test
    void aForgedHashAnUnknownKeyAndAMalformedSignatureAreRefused() {
        keys.add(key(1, 1000));
        BsonTimestamp time = new BsonTimestamp(500, 1);
        BsonDocument signature = signer.sign(time);

        assertRefused(() -> signer.verify(new BsonTimestamp(500, 2), signature), ErrorCode.TimeProofMismatch);
        byte[] forged = signature.getBinary("hash").getData().clone();
        forged[19] ^= 1;
        assertRefused(() -> signer.verify(time, new BsonDocument("hash", new BsonBinary(forged)).append("keyId", new BsonInt64(1))),
                ErrorCode.TimeProofMismatch);
        assertRefused(() -> signer.verify(time, new BsonDocument("hash", signature.get("hash")).append("keyId", new BsonInt64(9))),
                ErrorCode.KeyNotFound);
        assertRefused(() -> signer.verify(time, new BsonDocument("keyId", new BsonInt64(1))), ErrorCode.TimeProofMismatch);
    }

    @Test
    void theRememberedHashIsUsedOnlyForTheSameKeyBytesAndTime() {
        keys.add(key(1, 1000));
        BsonTimestamp time = new BsonTimestamp(500, 1);
        BsonDocument first = signer.sign(time);
        first.getBinary("hash").getData()[0] ^= 1; // a caller scribbling on its copy cannot change later signatures
        BsonDocument again = signer.sign(time);
        signer.verify(time, again);
        assertThat(again.getBinary("hash").getData()).isNotEqualTo(first.getBinary("hash").getData());

        byte[] otherSecret = new byte[SigningKey.LENGTH];
        otherSecret[1] = 7;
        keys.set(0, new SigningKey(1, otherSecret, new BsonTimestamp(1000, 0))); // same id, other bytes
        assertRefused(() -> signer.verify(time, again), ErrorCode.TimeProofMismatch);
        assertThat(signer.sign(time).getBinary("hash").getData()).isNotEqualTo(again.getBinary("hash").getData());
    }

    @Test
    void withoutAValidKeyItSignsWithTheDummySignature() {
        assertThat(signer.sign(new BsonTimestamp(5, 1))).isEqualTo(ClusterTimeSigner.UNSIGNED.sign(new BsonTimestamp(5, 1)));
        assertRefused(() -> signer.verify(new BsonTimestamp(5, 1), ClusterTimeSigner.UNSIGNED.sign(new BsonTimestamp(5, 1))),
                ErrorCode.KeyNotFound);
    }

    private static SigningKey key(long id, int expiresAtSeconds) {
        byte[] secret = new byte[SigningKey.LENGTH];
        secret[0] = (byte) id;
        return new SigningKey(id, secret, new BsonTimestamp(expiresAtSeconds, 0));
    }

    private static void assertRefused(Runnable verify, ErrorCode code) {
        assertThatThrownBy(verify::run).isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo(code));
    }
}
