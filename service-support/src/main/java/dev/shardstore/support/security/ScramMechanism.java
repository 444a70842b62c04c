package dev.shardstore.support.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.spec.InvalidKeySpecException;
import java.text.Normalizer;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The SCRAM mechanisms MongoDB offers (MongoDB manual "SCRAM"; RFC 5802, RFC 7677), each on the JDK's own
 * primitives: {@code PBKDF2WithHmacSHA*} for Hi(), {@code HmacSHA*} for HMAC(), {@code SHA-*} for H(). Nothing of the
 * cryptography is written here; this is the mechanism's parameters and MongoDB's password preparation.
 */
public enum ScramMechanism {
    /** {@code SCRAM-SHA-1}: the password is MongoDB's digest {@code hex(MD5(user + ":mongo:" + password))}. */
    SCRAM_SHA_1("SCRAM-SHA-1", "SHA-1", "HmacSHA1", "PBKDF2WithHmacSHA1", 20, 10_000, 16),
    /** {@code SCRAM-SHA-256} (MongoDB's default): the password SASLprep'd (here: Unicode NFKC, see {@link #prepare}). */
    SCRAM_SHA_256("SCRAM-SHA-256", "SHA-256", "HmacSHA256", "PBKDF2WithHmacSHA256", 32, 15_000, 28);

    private final String mechanismName;
    private final String digest;
    private final String hmac;
    private final String pbkdf2;
    private final int keyLength;
    private final int defaultIterations;
    private final int saltLength;

    ScramMechanism(String mechanismName, String digest, String hmac, String pbkdf2, int keyLength, int defaultIterations, int saltLength) {
        this.mechanismName = mechanismName;
        this.digest = digest;
        this.hmac = hmac;
        this.pbkdf2 = pbkdf2;
        this.keyLength = keyLength;
        this.defaultIterations = defaultIterations;
        this.saltLength = saltLength;
    }

    /** The SASL name, also the key of {@code credentials} in {@code admin.system.users}. */
    public String mechanismName() {
        return mechanismName;
    }

    /** MongoDB's default iteration count ({@code scramSHA1IterationCount} / {@code scramSHA256IterationCount}). */
    public int defaultIterations() {
        return defaultIterations;
    }

    /** The length of a new salt, in bytes (MongoDB's: 16 for SHA-1, 28 for SHA-256). */
    public int saltLength() {
        return saltLength;
    }

    /** The mechanism named {@code name} ({@code "SCRAM-SHA-256"}), if it is one of these. */
    public static Optional<ScramMechanism> ofName(String name) {
        for (ScramMechanism mechanism : values()) {
            if (mechanism.mechanismName.equals(name)) {
                return Optional.of(mechanism);
            }
        }
        return Optional.empty();
    }

    /**
     * The password as this mechanism hashes it, for {@code user}: SCRAM-SHA-1 takes MongoDB's digest of user and
     * password; SCRAM-SHA-256 the password normalized with Unicode NFKC, the normalization SASLprep (RFC 4013) is
     * built on — identical to SASLprep for every password without control, prohibited or bidirectional characters.
     */
    public String prepare(String user, String password) {
        if (this == SCRAM_SHA_1) {
            return HexFormat.of().formatHex(digest("MD5", (user + ":mongo:" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return Normalizer.normalize(password, Normalizer.Form.NFKC);
    }

    /** Hi(password, salt, iterations): PBKDF2 with this mechanism's HMAC, of the prepared password's UTF-8. */
    byte[] saltedPassword(String preparedPassword, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(preparedPassword.toCharArray(), salt, iterations, keyLength * 8);
            return SecretKeyFactory.getInstance(pbkdf2).generateSecret(spec).getEncoded();
        } catch (NoSuchAlgorithmException | InvalidKeySpecException e) {
            throw new IllegalStateException("the JDK has no " + pbkdf2, e);
        }
    }

    /** HMAC(key, text). */
    byte[] hmac(byte[] key, String text) {
        try {
            Mac mac = Mac.getInstance(hmac);
            mac.init(new SecretKeySpec(key, hmac));
            return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no " + hmac, e);
        }
    }

    /** H(bytes). */
    byte[] hash(byte[] bytes) {
        return digest(digest, bytes);
    }

    private static byte[] digest(String algorithm, byte[] bytes) {
        try {
            return MessageDigest.getInstance(algorithm).digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no " + algorithm, e);
        }
    }
}
